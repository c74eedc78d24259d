import {
  Alert,
  Button,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PushProgress, PushRequestInput, PushResult } from '../../core/api.js';
import { consoleApi } from '../api/console-api.js';
import { fieldMessage } from '../../core/i18n.js';
import { issueMessage, pushRequest } from '@svc/shared';
import { useT } from '../i18n.js';
import { ProofBadges } from './ProofBadge.js';

/**
 * Terminal keys typed in this window, by terminal id: kept in memory for the session (never
 * stored), so a batch can reach terminals with different keys.
 */
const sessionKeys = new Map<string, string>();

export function PushPanel({
  selected,
  centralUrl: current,
}: {
  selected: string[];
  centralUrl: string | null;
}) {
  const t = useT();
  const qc = useQueryClient();
  const [centralUrl, setCentralUrl] = useState('');
  const [panelUrl, setPanelUrl] = useState('');
  const [keys, setKeys] = useState<Record<string, string>>(() => Object.fromEntries(sessionKeys));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const push = useMutation({
    mutationFn: (request: PushRequestInput) => consoleApi.push(request),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['pushes'] }),
  });
  const setKey = (id: string, key: string) => {
    if (key) sessionKeys.set(id, key);
    else sessionKeys.delete(id);
    setKeys(Object.fromEntries(sessionKeys));
  };
  // Checked with the schema the core checks with (the shared rules), field by field.
  const submit = (direct: boolean) => {
    const chosen = Object.fromEntries(
      selected.filter((id) => keys[id]).map((id) => [id, keys[id] ?? '']),
    );
    const parsed = pushRequest.safeParse({
      ids: selected,
      centralUrl: centralUrl || current || '',
      ...(panelUrl && { panelUrl }),
      ...(Object.keys(chosen).length > 0 && { keys: chosen }),
      ...(direct && { direct: true }),
    });
    if (!parsed.success) {
      setErrors(
        Object.fromEntries(
          parsed.error.issues.map((i) => {
            // The shared rule's code, said in the console's language.
            const m = issueMessage(i);
            return [
              i.path[0] === 'keys' ? `key:${String(i.path[1])}` : String(i.path[0]),
              fieldMessage(m.code, m.params),
            ];
          }),
        ),
      );
      return;
    }
    setErrors({});
    push.mutate(parsed.data);
  };
  return (
    <Stack>
      <Title order={2} size="h4">
        {t('push.title')}
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit(false);
        }}
      >
        <Stack>
          <Group align="end">
            <TextInput
              label={t('push.centralUrl')}
              placeholder={current ?? 'http://192.168.1.10'}
              value={centralUrl}
              onChange={(e) => setCentralUrl(e.currentTarget.value)}
              error={errors.centralUrl}
            />
            <TextInput
              label={t('push.panelUrl')}
              value={panelUrl}
              onChange={(e) => setPanelUrl(e.currentTarget.value)}
              error={errors.panelUrl}
            />
          </Group>
          {selected.length > 0 && (
            <div>
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs">
                {selected.map((id) => (
                  <PasswordInput
                    key={id}
                    label={t('push.keyFor', { id })}
                    placeholder={t('push.keyNone')}
                    autoComplete="off"
                    value={keys[id] ?? ''}
                    onChange={(e) => setKey(id, e.currentTarget.value)}
                    error={errors[`key:${id}`]}
                  />
                ))}
              </SimpleGrid>
              <Text size="xs">{t('push.keysNote')}</Text>
            </div>
          )}
          <Group>
            <Button type="submit" disabled={selected.length === 0} loading={push.isPending}>
              {t('push.through', { count: selected.length })}
            </Button>
            <Button
              variant="outline"
              color="red"
              disabled={selected.length === 0 || push.isPending}
              onClick={() => submit(true)}
            >
              {t('push.direct', { count: selected.length })}
            </Button>
          </Group>
          <Text size="xs">{t('push.directNote')}</Text>
        </Stack>
      </form>
      {push.isPending && <PushRunning />}
      {push.error && <Alert color="red">{push.error.message}</Alert>}
      {!push.isPending && push.data && <PushResults results={push.data} />}
    </Stack>
  );
}

/** How often a running push is asked where each terminal is. */
const PROGRESS_REFRESH_MS = 500;

/** A running push, terminal by terminal: the step each is at, and for how long. */
function PushRunning() {
  const t = useT();
  const progress = useQuery({
    queryKey: ['pushProgress'],
    queryFn: () => consoleApi.pushProgress(),
    refetchInterval: PROGRESS_REFRESH_MS,
    gcTime: 0,
  });
  const rows = progress.data ?? [];
  const done = rows.filter((r) => r.step === 'done').length;
  return (
    <Stack gap="xs">
      <Text size="sm" role="status" fw={600}>
        {t('push.progress.summary', { done, count: rows.length })}
      </Text>
      <Table aria-label={t('push.progress.title')} layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={{ base: '40%', sm: '30%' }}>{t('push.progress.terminal')}</Table.Th>
            <Table.Th>{t('push.progress.step')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Text fw={600}>{r.id}</Text>
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{progressWords(t, r)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function progressWords(t: ReturnType<typeof useT>, r: PushProgress): string {
  switch (r.step) {
    case 'saving':
      return t(r.direct ? 'push.progress.savingDirect' : 'push.progress.saving', {
        seconds: r.seconds,
      });
    case 'readingBack':
      return t('push.progress.readingBack', { seconds: r.seconds });
    case 'checkingIn':
      return t('push.progress.checkingIn', { seconds: r.seconds, max: r.checkinTimeoutS });
    default:
      return t(r.ok ? 'push.progress.proven' : 'push.progress.notProven');
  }
}

function PushResults({ results }: { results: PushResult[] }) {
  const t = useT();
  // The proofs sit under the terminal's id, in a column wide enough for the longest badge, so
  // every badge stays whole and in view at a phone's width.
  return (
    <Table aria-label={t('push.results')} layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={{ base: '55%', sm: '30%' }}>{t('push.resultsTerminal')}</Table.Th>
          <Table.Th>{t('push.resultsDetails')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {results.map((r) => (
          <Table.Tr key={r.id} style={{ verticalAlign: 'top' }}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>
              <Text fw={600}>{r.id}</Text>
              {r.via !== 'central' && (
                <Text size="xs" c={r.via === 'direct' ? 'orange.9' : 'red.9'}>
                  {r.via === 'direct' ? t('push.viaDirect') : t('push.viaNone')}
                </Text>
              )}
              <ProofBadges push={r} />
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>
              {[r.saved, r.readBack, r.checkedIn]
                .filter((s) => !s.skipped)
                .map((s) => s.detail)
                .join(' · ')}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
