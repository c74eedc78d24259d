import {
  Alert,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { describeError } from '../messages';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';

export function LoginPage({ notice }: { notice?: string }) {
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useDocumentTitle('Sign in');

  async function submit(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await signIn(username.trim(), password);
    } catch (failure) {
      setError(describeError(failure, 'login'));
      setPassword('');
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    void submit();
  }

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <form onSubmit={onSubmit} aria-labelledby="login-title" noValidate>
          <Stack>
            <div>
              <Title order={1} size="h2" id="login-title">
                Sign in
              </Title>
              <Text c="dimmed" size="sm">
                svc management site
              </Text>
            </div>
            {notice !== undefined && error === null && (
              <Alert color="blue" data-testid="login-notice">
                {notice}
              </Alert>
            )}
            {error !== null && (
              <Alert color="red" title="Sign-in failed" data-testid="login-error">
                {error}
              </Alert>
            )}
            <TextInput
              label="Username"
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
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              withAsterisk={false}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <Button
              type="submit"
              loading={busy}
              disabled={username.trim() === '' || password === ''}
            >
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
