import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { Outlet } from '@tanstack/react-router';
import { Shell } from './components/Shell';
import { LiveProvider } from './live';
import { ChangePasswordPage } from './pages/ChangePasswordPage';
import { LoginPage } from './pages/LoginPage';
import { useSession } from './session';

/** The root route: the session decides first (sign-in, forced change), then the route. */
export function App() {
  const { state, refresh } = useSession();

  switch (state.status) {
    case 'loading':
      return (
        <Center mih="100vh" component="main">
          <Loader aria-label="Loading" />
        </Center>
      );
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
      return state.user.mustChangePassword ? (
        <ChangePasswordPage user={state.user} />
      ) : (
        <LiveProvider>
          <Shell user={state.user}>
            <Outlet />
          </Shell>
        </LiveProvider>
      );
  }
}
