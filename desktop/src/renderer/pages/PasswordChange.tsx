import { Alert, Button, Group, PasswordInput, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { CentralState } from '../../core/api.js';
import { consoleApi } from '../api/console-api.js';
import { useT } from '../i18n.js';

/**
 * The password change an account must make before the central service lets it change anything,
 * offered right at the sign-in. Neither password is kept.
 */
export function PasswordChange({ onDone }: { onDone: (state: CentralState) => void }) {
  const t = useT();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => consoleApi.changePassword(current, next),
    onSuccess: (state) => {
      setCurrent('');
      setNext('');
      onDone(state);
    },
  });
  return (
    <form
      aria-label={t('password.form')}
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate();
      }}
    >
      <Text fw={600} mt="sm">
        {t('password.title')}
      </Text>
      <Group align="end">
        <PasswordInput
          label={t('password.current')}
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.currentTarget.value)}
          required
        />
        <PasswordInput
          label={t('password.new')}
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.currentTarget.value)}
          required
        />
        <Button type="submit" loading={change.isPending}>
          {t('password.submit')}
        </Button>
      </Group>
      {change.error && (
        <Alert color="red" mt="sm">
          {change.error.message}
        </Alert>
      )}
    </form>
  );
}
