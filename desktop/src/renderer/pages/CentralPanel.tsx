import { STATUS_COLOR } from './colors.js';
import { Alert, Badge, Button, Group, Paper, PasswordInput, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { consoleApi } from '../api/console-api.js';

/** The central address (typed, or picked from `central` datagrams heard) and the sign-in. */
export function CentralPanel() {
  const qc = useQueryClient();
  const central = useQuery({ queryKey: ['central'], queryFn: () => consoleApi.getCentral() });
  const heard = useQuery({
    queryKey: ['centrals'],
    queryFn: () => consoleApi.listCentrals(),
    refetchInterval: 5000,
  });
  const [url, setUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const done = (data: Awaited<ReturnType<typeof consoleApi.getCentral>>) =>
    qc.setQueryData(['central'], data);
  const setCentral = useMutation({
    mutationFn: (u: string) => consoleApi.setCentral(u),
    onSuccess: done,
  });
  const signIn = useMutation({
    mutationFn: () => consoleApi.signIn(username, password),
    onSuccess: (data) => {
      setPassword('');
      done(data);
      void qc.invalidateQueries({ queryKey: ['acceptance'] });
    },
  });
  const signOut = useMutation({ mutationFn: () => consoleApi.signOut(), onSuccess: done });
  const c = central.data;
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setCentral.mutate(url);
        }}
      >
        <Group align="end">
          <TextInput
            label="Central address"
            placeholder="http://192.168.1.10"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            w={320}
          />
          <Button type="submit">Use this central service</Button>
          {heard.data?.map((h) => (
            <Button
              key={h.url}
              variant="default"
              onClick={() => {
                setUrl(h.url);
                setCentral.mutate(h.url);
              }}
            >
              Heard: {h.url}
            </Button>
          ))}
        </Group>
      </form>
      {setCentral.error && (
        <Alert color="red" mt="sm">
          {setCentral.error.message}
        </Alert>
      )}
      {c?.url && (
        <Group mt="sm" aria-label="Central status">
          <Text>Central: {c.url}</Text>
          {c.heartbeat ? (
            <Badge color={c.heartbeat.state === 1 ? STATUS_COLOR.ok : STATUS_COLOR.bad}>
              heartbeat state={c.heartbeat.state}, {c.heartbeat.responseTimeMs} ms
            </Badge>
          ) : (
            <Badge color={STATUS_COLOR.bad}>unreachable{c.error ? `: ${c.error}` : ''}</Badge>
          )}
          {c.user && (
            <Text>
              Signed in as {c.user.username} ({c.user.role})
            </Text>
          )}
        </Group>
      )}
      {c?.url && !c.user && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            signIn.mutate();
          }}
        >
          <Group align="end" mt="sm">
            <TextInput
              label="User name"
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <Button type="submit" loading={signIn.isPending}>
              Sign in
            </Button>
          </Group>
          <Text size="xs">The console never stores credentials.</Text>
        </form>
      )}
      {signIn.error && (
        <Alert color="red" mt="sm">
          {signIn.error.message}
        </Alert>
      )}
      {c?.user && (
        <Button mt="sm" variant="subtle" onClick={() => signOut.mutate()}>
          Sign out
        </Button>
      )}
    </Paper>
  );
}
