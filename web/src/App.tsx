import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { LoginPage } from './pages/LoginPage';
import { SignInAgain } from './pages/SignInAgain';
import { useSession } from './session';
import { useT } from './i18n';
import { say } from './said';

// What only a signed-in administrator sees is not part of the login page's bundle. It starts
// loading while the session is checked (below), so a signed-in reload does not wait for the
// check and then for the chunk, one after the other.
const loadSignedIn = () => import('./SignedIn');
const SignedIn = lazy(async () => ({ default: (await loadSignedIn()).SignedIn }));
const ChangePasswordPage = lazy(async () => ({
  default: (await import('./pages/ChangePasswordPage')).ChangePasswordPage,
}));
const TwoFactorRequiredPage = lazy(async () => ({
  default: (await import('./pages/TwoFactorRequiredPage')).TwoFactorRequiredPage,
}));

function Loading() {
  const t = useT();
  return (
    <Center mih="100vh" component="main">
      <Loader role="status" aria-label={t('common.loading')} />
    </Center>
  );
}
const loading = <Loading />;

/** The root route: the session decides first (sign-in, forced change), then the route. */
export function App() {
  const t = useT();
  const { state, refresh } = useSession();

  switch (state.status) {
    case 'loading':
      void loadSignedIn().catch(() => undefined);
      return loading;
    case 'unavailable':
      return (
        <Center mih="100vh" p="md" component="main">
          <Stack maw={460}>
            <Alert color="red" title={t('app.unreachable')} data-testid="session-error">
              {say(state.message)}
            </Alert>
            <Button onClick={() => void refresh()}>{t('common.tryAgain')}</Button>
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
          ) : state.user.twoFactorEnrolmentRequired === true ? (
            <TwoFactorRequiredPage user={state.user} />
          ) : (
            // Another account remounts the site: nothing typed by the previous one stays.
            <SignedIn key={state.user.id} user={state.user} ended={state.ended === true} />
          )}
          {state.ended === true && <SignInAgain username={state.user.username} />}
        </Suspense>
      );
  }
}
