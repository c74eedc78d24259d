import type { SessionUser } from '@svc/shared';
import { Outlet } from '@tanstack/react-router';
import { Shell } from './components/Shell';
import { LiveProvider } from './live';

/** The signed-in site: the live stream, the shell, and the route's page. */
export function SignedIn({ user }: { user: SessionUser }) {
  return (
    <LiveProvider>
      <Shell user={user}>
        <Outlet />
      </Shell>
    </LiveProvider>
  );
}
