import { STATUS_COLOR } from './colors.js';
import { Alert, Button, Group, Paper, PasswordInput, Text, TextInput } from '@mantine/core';
import { centralHealth, centralReachWords, roleName } from '../../core/texts.js';
import { PasswordChange } from './PasswordChange.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { withHttpScheme } from '@svc/shared';
import type { CentralState } from '../../core/api.js';
import { consoleApi } from '../api/console-api.js';
import { useT } from '../i18n.js';

const HEALTH_COLOR = {
  ok: STATUS_COLOR.ok,
  warn: STATUS_COLOR.warn,
  bad: STATUS_COLOR.bad,
  none: undefined,
} as const;

/** The central address (typed, or picked from `central` datagrams heard) and the sign-in. */
export function CentralPanel() {
  const t = useT();
  const qc = useQueryClient();
  const central = useQuery({ queryKey: ['central'], queryFn: () => consoleApi.getCentral() });
  const heard = useQuery({
    queryKey: ['centrals'],
    queryFn: async () => {
      const centrals = await consoleApi.listCentrals();
      // A central service speaks only when probed, and what it said is forgotten after the
      // discovery timeout: with none chosen and none heard, ask the LAN again.
      if (centrals.length > 0 || qc.getQueryData<CentralState>(['central'])?.url) return centrals;
      await consoleApi.probe();
      // Answers on the LAN come within milliseconds; list them with this look, not the next.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return consoleApi.listCentrals();
    },
    refetchInterval: 5000,
  });
  const [url, setUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const done = async (data: CentralState) => {
    // A header poll that left before this answer would bring back the state before it (an
    // old refusal after a successful sign-in): the answer of the latest action wins.
    await qc.cancelQueries({ queryKey: ['central'] });
    qc.setQueryData(['central'], data);
  };
  const signIn = useMutation({
    mutationFn: () =>
      code.trim() && central.data?.codeRequired
        ? consoleApi.signIn(username, password, code.trim())
        : consoleApi.signIn(username, password),
    onSuccess: (data) => {
      // Asked for the second factor: the password stays typed until the code goes with it.
      if (!data.codeRequired) setPassword('');
      setCode('');
      void done(data);
      void qc.invalidateQueries({ queryKey: ['acceptance'] });
    },
  });
  const signOut = useMutation({ mutationFn: () => consoleApi.signOut(), onSuccess: done });
  const setCentral = useMutation({
    mutationFn: (u: string) => consoleApi.setCentral(u),
    onMutate: () => {
      // Another address: the previous one's sign-in error and typed secrets do not follow it.
      signIn.reset();
      signOut.reset();
      setPassword('');
      setCode('');
    },
    onSuccess: async (data) => {
      await done(data);
      // Another site: its own acceptance and pushes.
      void qc.invalidateQueries({ queryKey: ['acceptance'] });
      void qc.invalidateQueries({ queryKey: ['pushes'] });
    },
  });
  const c = central.data;
  const health = centralHealth(c);
  const field = { base: '100%', sm: 260 } as const;
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const typed = withHttpScheme(url);
          setUrl(typed);
          setCentral.mutate(typed);
        }}
      >
        <Group align="end">
          <TextInput
            label={t('central.address')}
            placeholder="http://192.168.1.10"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            w={320}
            maw="100%"
          />
          <Button type="submit">{t('central.use')}</Button>
          {heard.data?.map((h) => (
            <Button
              key={h.url}
              variant="default"
              maw="100%"
              onClick={() => {
                setUrl(h.url);
                setCentral.mutate(h.url);
              }}
            >
              {t('central.heard', { url: h.url })}
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
        <Group mt="sm" aria-label={t('central.state')}>
          <Text style={{ overflowWrap: 'anywhere' }}>{t('central.current', { url: c.url })}</Text>
          <Text fw={600} c={HEALTH_COLOR[health.health]} style={{ overflowWrap: 'anywhere' }}>
            {health.text}
          </Text>
          {c.user && (
            <Text>
              {t('signIn.signedInAs', { user: c.user.username, role: roleName(c.user.role) })}
            </Text>
          )}
        </Group>
      )}
      {c?.reach && (
        <Alert color="red" mt="sm" title={t('central.whatToCheck')}>
          {/* From the code the header words too: the same truth, in the language read now. */}
          {centralReachWords(c.reach).advice}
        </Alert>
      )}
      {c?.user && c.user.limits.length > 0 && (
        <Alert color="yellow" mt="sm" title={t('central.cannotDo')}>
          {c.user.limits.join(' ')}
        </Alert>
      )}
      {c?.user?.mustChangePassword && <PasswordChange onDone={(state) => void done(state)} />}
      {c?.url && !c.user && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            signIn.mutate();
          }}
        >
          <Group align="end" mt="sm">
            <TextInput
              label={t('signIn.username')}
              w={field}
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
            />
            <PasswordInput
              label={t('signIn.password')}
              w={field}
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            {c.codeRequired && (
              <TextInput
                label={t('signIn.code')}
                w={field}
                autoComplete="one-time-code"
                inputMode="numeric"
                // Shown because the technician just asked to sign in: the code is what comes next.
                autoFocus
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
              />
            )}
            <Button type="submit" loading={signIn.isPending}>
              {t('signIn.submit')}
            </Button>
          </Group>
          {c.codeRequired && (
            <Text size="sm" role="status">
              {t('signIn.codeAsked')}
            </Text>
          )}
          <Text size="xs">{t('signIn.noCredentialsKept')}</Text>
        </form>
      )}
      {signIn.error && (
        <Alert color="red" mt="sm">
          {signIn.error.message}
        </Alert>
      )}
      {/* c, not color: a subtle button's text ignores the shade of `color`; blue.9 keeps 4.5:1. */}
      {c?.user && (
        <Button mt="sm" variant="subtle" c="blue.9" onClick={() => signOut.mutate()}>
          {t('signIn.signOut')}
        </Button>
      )}
    </Paper>
  );
}
