import type { SessionUser } from '@svc/shared';
import { Outlet } from '@tanstack/react-router';
import { Shell } from './components/Shell';
import { LiveProvider } from './live';

/** The signed-in site: the live stream, the shell, and the route's page. */
export function SignedIn({ user, ended }: { user: SessionUser; ended: boolean }) {
  return (
    // The stream is scoped when it opens: a superadmin's new organization opens a new one.
    // While the session has ended the stream rests; it opens again once signed in.
    <LiveProvider key={user.workingOrganizationId ?? 'all'} active={!ended}>
      <Shell user={user}>
        <Outlet />
      </Shell>
    </LiveProvider>
  );
}
