import {
  Alert,
  Anchor,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { PASSWORD_MIN_LENGTH, type SessionUser } from '@svc/shared';
import { useState, type FormEvent } from 'react';
import { ApiError, changePassword } from '../api';
import { isSessionGone, refusalOf } from '../messages';
import { useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { said } from '../said';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';

/** Shown instead of everything else while `user.mustChangePassword` is true. */
export function ChangePasswordPage({ user }: { user: SessionUser }) {
  const t = useT();
  const { refresh, signOut } = useSession();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The server's words for a field, shown beside it (a 400 names the fields it refused).
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  useDocumentTitle(t('shell.changePassword'));

  async function submit(): Promise<void> {
    setError(null);
    setFieldErrors({});
    if (newPassword !== confirmation) {
      setMismatch(true);
      return;
    }
    setBusy(true);
    try {
      await changePassword(currentPassword, newPassword);
    } catch (failure) {
      setBusy(false);
      if (failure instanceof ApiError && isSessionGone(failure)) {
        await refresh(said('errors.session_expired', { ns: 'shared' }));
        return;
      }
      const refusal = refusalOf(failure, 'password', ['currentPassword', 'newPassword']);
      setFieldErrors(refusal.fields);
      setError(refusal.banner);
      return;
    }
    // The server may keep the session (then `me` shows the home page) or end it.
    await refresh(said('password.changedSignIn'));
    setBusy(false);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    void submit();
  }

  const filled = currentPassword !== '' && newPassword !== '' && confirmation !== '';

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={460}>
        <form onSubmit={onSubmit} aria-labelledby="password-title" noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2" id="password-title">
                {t('shell.changeYourPassword')}
              </Title>
              <Text c="dimmed" size="sm">
                <Tx
                  k="password.forced"
                  values={{ username: user.username }}
                  components={{ b: <strong /> }}
                />
              </Text>
            </div>
            {error !== null && (
              <Alert color="red" title={t('password.notChanged')} data-testid="password-error">
                {error}
              </Alert>
            )}
            <PasswordInput
              visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
              label={t('password.current')}
              name="current-password"
              autoComplete="current-password"
              required
              withAsterisk={false}
              value={currentPassword}
              error={fieldErrors.currentPassword}
              onChange={(event) => setCurrentPassword(event.currentTarget.value)}
            />
            <PasswordInput
              visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
              label={t('password.new')}
              name="new-password"
              autoComplete="new-password"
              description={t('password.newHintWords', { min: PASSWORD_MIN_LENGTH })}
              required
              withAsterisk={false}
              value={newPassword}
              error={fieldErrors.newPassword}
              onChange={(event) => {
                setNewPassword(event.currentTarget.value);
                setMismatch(false);
              }}
            />
            <PasswordInput
              visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
              label={t('password.confirm')}
              name="confirm-password"
              autoComplete="new-password"
              required
              withAsterisk={false}
              value={confirmation}
              error={mismatch ? t('messages.passwords_differ', { ns: 'shared' }) : undefined}
              onChange={(event) => {
                setConfirmation(event.currentTarget.value);
                setMismatch(false);
              }}
            />
            <Group justify="space-between">
              <Anchor component="button" type="button" size="sm" onClick={() => void signOut()}>
                {t('shell.signOut')}
              </Anchor>
              <Button type="submit" loading={busy} disabled={!filled}>
                {t('password.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
