import {
  Alert,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { ErrorCode } from '@svc/shared';
import { ApiError } from '../api';
import { describeError } from '../messages';
import { useSession } from '../session';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { showLanguage, t as translate, useT } from '../i18n';
import { say, type Said } from '../said';
import { useDocumentTitle } from '../useDocumentTitle';

export function LoginPage({ notice }: { notice?: Said }) {
  const t = useT();
  useDocumentTitle(t('login.title'));
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <LoginForm
          notice={notice}
          labelledBy="login-title"
          head={
            <div>
              <Group justify="space-between" align="flex-start" wrap="nowrap">
                <Title order={1} size="h2" id="login-title">
                  {t('login.title')}
                </Title>
                <LanguageSwitch choose={showLanguage} />
              </Group>
              <Text c="dimmed" size="sm">
                {t('login.subtitle')}
              </Text>
            </div>
          }
        />
      </Paper>
    </Center>
  );
}

/**
 * Username, password and (when asked) the second factor. The login page and the dialog that
 * asks again after a session ended both use it; `head` and `foot` are theirs.
 */
export function LoginForm({
  notice,
  labelledBy,
  head,
  foot,
  username: knownUsername = '',
}: {
  /** Why the form is here, worded in the language shown now. */
  notice?: Said;
  labelledBy: string;
  head?: ReactNode;
  foot?: ReactNode;
  username?: string;
}) {
  const t = useT();
  const { signIn } = useSession();
  const [username, setUsername] = useState(knownUsername);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  /** The code field shows once the server asks for it, or when a lockout holds. */
  const [askCode, setAskCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [step, setStep] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await signIn(username.trim(), password, askCode ? code.trim() : undefined);
    } catch (failure) {
      const problem = twoFactorProblem(failure);
      if (problem !== null) setAskCode(true);
      // The code asked for is the next step, said as such; anything else is a failure.
      const nextStep = failure instanceof ApiError && failure.code === ErrorCode.twoFactorRequired;
      setStep(nextStep ? (problem?.message ?? null) : null);
      setError(nextStep ? null : (problem?.message ?? describeError(failure, 'login')));
      // The password stays while only the code is asked for; anything else starts over.
      if (problem?.keepPassword !== true) setPassword('');
      setCode('');
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    void submit();
  }

  return (
    <form onSubmit={onSubmit} aria-labelledby={labelledBy} noValidate>
      <Stack>
        {head}
        <LoginAlerts notice={notice} step={step} error={error} />
        <TextInput
          label={t('login.username')}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          withAsterisk={false}
          value={username}
          onChange={(event) => setUsername(event.currentTarget.value)}
        />
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
          label={t('login.password')}
          name="password"
          // The dialog that asks again knows who: the password is what is left to type.
          data-autofocus={knownUsername === '' ? undefined : true}
          autoComplete="current-password"
          required
          withAsterisk={false}
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
        />
        {askCode && (
          <TextInput
            label={t('login.code')}
            description={t('login.codeHint')}
            name="code"
            autoComplete="one-time-code"
            autoCapitalize="none"
            spellCheck={false}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
          />
        )}
        <Button
          type="submit"
          loading={busy}
          disabled={username.trim() === '' || password === '' || (askCode && code.trim() === '')}
        >
          {t('login.submit')}
        </Button>
        {foot}
      </Stack>
    </form>
  );
}

/** Why the form is here (plain HTTP, a notice), the next step, or what went wrong. */
function LoginAlerts({
  notice,
  step,
  error,
}: {
  notice?: Said;
  step: string | null;
  error: string | null;
}) {
  const t = useT();
  return (
    <>
      {!window.isSecureContext && (
        // Plain HTTP on a network address (a loopback address counts as secure): a quiet
        // word, not a block; the normal LAN deployment works this way.
        <Alert color="yellow" variant="light" data-testid="login-insecure">
          {t('login.notEncrypted')}
        </Alert>
      )}
      {notice !== undefined && error === null && (
        <Alert color="blue" data-testid="login-notice">
          {say(notice)}
        </Alert>
      )}
      {step !== null && (
        <Alert color="blue" role="status" data-testid="login-step">
          {step}
        </Alert>
      )}
      {error !== null && (
        <Alert color="red" title={t('login.failed')} data-testid="login-error">
          {error}
        </Alert>
      )}
    </>
  );
}

/** What the login page says when the second factor is the matter, or null when it is not. */
function twoFactorProblem(failure: unknown): { message: string; keepPassword: boolean } | null {
  if (!(failure instanceof ApiError)) return null;
  if (failure.code === ErrorCode.twoFactorRequired) {
    return {
      message: translate('login.codeNeeded'),
      keepPassword: true,
    };
  }
  if (failure.code === ErrorCode.twoFactorInvalid) {
    return {
      message: translate('login.codeWrong'),
      keepPassword: true,
    };
  }
  if (failure.status === 429) {
    return {
      message: translate('login.lockedWithCode', { problem: describeError(failure, 'login') }),
      keepPassword: false,
    };
  }
  return null;
}
