import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { LoginPage } from './pages/LoginPage';
import { useSession } from './session';

// What only a signed-in administrator sees is not part of the login page's bundle. It starts
// loading while the session is checked (below), so a signed-in reload does not wait for the
// check and then for the chunk, one after the other.
const loadSignedIn = () => import('./SignedIn');
const SignedIn = lazy(async () => ({ default: (await loadSignedIn()).SignedIn }));
const ChangePasswordPage = lazy(async () => ({
  default: (await import('./pages/ChangePasswordPage')).ChangePasswordPage,
}));

const loading = (
  <Center mih="100vh" component="main">
    <Loader aria-label="Loading" />
  </Center>
);

/** The root route: the session decides first (sign-in, forced change), then the route. */
export function App() {
  const { state, refresh } = useSession();

  switch (state.status) {
    case 'loading':
      void loadSignedIn().catch(() => undefined);
      return loading;
    case 'unavailable':
      return (
        <Center mih="100vh" p="md" component="main">
          <Stack maw={460}>
            <Alert color="red" title="The service is not reachable" data-testid="session-error">
              {state.message}
            </Alert>
            <Button onClick={() => void refresh()}>Try again</Button>
          </Stack>
        </Center>
      );
    case 'signedOut':
      return <LoginPage notice={state.notice} />;
    case 'signedIn':
      return (
        <Suspense fallback={loading}>
          {state.user.mustChangePassword ? (
            <ChangePasswordPage user={state.user} />
          ) : (
            <SignedIn user={state.user} />
          )}
        </Suspense>
      );
  }
}
