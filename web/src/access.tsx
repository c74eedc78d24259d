import { Alert, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from './nav';
import { useSession } from './session';

/** Whether the signed-in role may change data (operators read only). */
export function useCanEdit(): boolean {
  const { state } = useSession();
  return state.status === 'signedIn' && state.user.role !== 'operator';
}

/** Renders the page only for roles that may change data. */
export function RequireEdit({ children }: { children: ReactNode }) {
  return useCanEdit() ? children : <NotAllowed />;
}

export function NotFound() {
  return (
    <>
      <Title order={1}>Page not found</Title>
      <Link to="/">Go to the home page</Link>
    </>
  );
}

export function NotAllowed() {
  return (
    <>
      <Title order={1}>Not allowed</Title>
      <Alert color="yellow" data-testid="not-allowed">
        Your role can read this data but not change it.
      </Alert>
    </>
  );
}
