import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { ChangePasswordPage } from './pages/ChangePasswordPage';
import { HomePage } from './pages/HomePage';
import { LoginPage } from './pages/LoginPage';
import { useSession } from './session';

/** Which page is shown follows from the session alone (the path is not used yet). */
export function App() {
  const { state, refresh } = useSession();

  switch (state.status) {
    case 'loading':
      return (
        <Center mih="100vh">
          <Loader aria-label="Loading" />
        </Center>
      );
    case 'unavailable':
      return (
        <Center mih="100vh" p="md">
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
        <HomePage user={state.user} />
      );
  }
}
