import { Alert, Button, Center, Loader, Stack, Title } from '@mantine/core';
import type { SessionUser } from '@svc/shared';
import { Shell } from './components/Shell';
import { EventsPage } from './events/EventsPage';
import { ChangePasswordPage } from './pages/ChangePasswordPage';
import { HomePage } from './pages/HomePage';
import { LoginPage } from './pages/LoginPage';
import { PeoplePage } from './people/PeoplePage';
import { PersonFormPage } from './people/PersonFormPage';
import { PersonPage } from './people/PersonPage';
import { Link, matchPath, useLocation } from './router';
import { useSession } from './session';

/** Which page is shown follows from the session first, then from the path. */
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
        <Shell user={state.user}>
          <Routes user={state.user} />
        </Shell>
      );
  }
}

function Routes({ user }: { user: SessionUser }) {
  const { path } = useLocation();
  const canEdit = user.role !== 'operator';
  let params: Record<string, string> | null;

  if (matchPath('/', path)) return <HomePage />;
  if (matchPath('/people', path)) return <PeoplePage canEdit={canEdit} />;
  if (matchPath('/people/new', path)) {
    return canEdit ? <PersonFormPage /> : <NotAllowed />;
  }
  if ((params = matchPath('/people/:id/edit', path))) {
    return canEdit ? <PersonFormPage id={params.id} /> : <NotAllowed />;
  }
  if ((params = matchPath('/people/:id', path))) {
    return <PersonPage id={params.id!} canEdit={canEdit} />;
  }
  if (matchPath('/events', path)) return <EventsPage />;
  return <NotFound />;
}

function NotFound() {
  return (
    <>
      <Title order={1}>Page not found</Title>
      <Link to="/">Go to the home page</Link>
    </>
  );
}

function NotAllowed() {
  return (
    <>
      <Title order={1}>Not allowed</Title>
      <Alert color="yellow" data-testid="not-allowed">
        Your role can read this data but not change it.
      </Alert>
    </>
  );
}
