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
import { describeError, isSessionGone } from '../messages';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';

/** Shown instead of everything else while `user.mustChangePassword` is true. */
export function ChangePasswordPage({ user }: { user: SessionUser }) {
  const { refresh, signOut } = useSession();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useDocumentTitle('Change password');

  async function submit(): Promise<void> {
    setError(null);
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
        await refresh('Your session has ended. Sign in again.');
        return;
      }
      setError(describeError(failure, 'password'));
      return;
    }
    // The server may keep the session (then `me` shows the home page) or end it.
    await refresh('Your password was changed. Sign in with the new password.');
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
                Change your password
              </Title>
              <Text c="dimmed" size="sm">
                Signed in as <strong>{user.username}</strong>. Choose a new password before you
                continue.
              </Text>
            </div>
            {error !== null && (
              <Alert color="red" title="Password not changed" data-testid="password-error">
                {error}
              </Alert>
            )}
            <PasswordInput
              label="Current password"
              name="current-password"
              autoComplete="current-password"
              required
              withAsterisk={false}
              value={currentPassword}
              onChange={(event) => setCurrentPassword(event.currentTarget.value)}
            />
            <PasswordInput
              label="New password"
              name="new-password"
              autoComplete="new-password"
              description={`At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a good one.`}
              required
              withAsterisk={false}
              value={newPassword}
              onChange={(event) => {
                setNewPassword(event.currentTarget.value);
                setMismatch(false);
              }}
            />
            <PasswordInput
              label="Confirm new password"
              name="confirm-password"
              autoComplete="new-password"
              required
              withAsterisk={false}
              value={confirmation}
              error={mismatch ? 'The two new passwords are not the same.' : undefined}
              onChange={(event) => {
                setConfirmation(event.currentTarget.value);
                setMismatch(false);
              }}
            />
            <Group justify="space-between">
              <Anchor component="button" type="button" size="sm" onClick={() => void signOut()}>
                Sign out
              </Anchor>
              <Button type="submit" loading={busy} disabled={!filled}>
                Change password
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
