import { Alert, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { formatTime } from './format';
import { keys, useApiQuery } from '../query';
import { listAllDevices } from '../devices/api';
import { getPersonSync } from './api';
import { retryTask } from '../sync/api';
import {
  AttemptsHelp,
  isWaitingForPhoto,
  lastFailureText,
  SyncStateBadge,
  taskActionLabel,
} from '../sync/labels';
import { NextAttempt, RetryButton } from '../sync/TaskTable';
import { useRetry } from '../sync/useRetry';
import { Serial } from '../components/Serial';

/**
 * Where this person stands on every device, with a retry per device. The live stream's `sync`
 * messages about this person invalidate the query (live.tsx): no Refresh needed, but offered.
 */
export function PersonSync({ personId }: { personId: string }) {
  const t = useT();
  const canEdit = useCanEdit();
  const sync = useApiQuery(keys.personSync(personId), (signal) => getPersonSync(personId, signal));
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const deviceName = new Map((devices.data ?? []).map((device) => [device.id, device.name]));
  const { busy, problem, notice, run } = useRetry(keys.personSync(personId));
  const retry = (taskId: string, device: string) =>
    run(taskId, async () => {
      await retryTask(taskId);
      return t('people.retried', { device });
    });

  return (
    <Card withBorder component="section" aria-labelledby="person-sync-title">
      <Stack gap="xs">
        <Group gap="sm">
          <Title order={2} size="h3" id="person-sync-title">
            {t('nav.devices')}
          </Title>
          <Button variant="subtle" size="xs" onClick={sync.reload} loading={sync.loading}>
            {t('people.refresh')}
          </Button>
        </Group>
        {sync.error !== null && (
          <Alert color="red" data-testid="sync-error">
            {sync.error}
          </Alert>
        )}
        {problem !== null && (
          <Alert color="red" data-testid="sync-problem">
            {problem}
          </Alert>
        )}
        {notice !== null && (
          <Alert color="blue" role="status" data-testid="sync-notice">
            {notice}
          </Alert>
        )}
        {sync.data !== null && sync.data.length === 0 && (
          <Text c="dimmed" data-testid="sync-empty">
            {t('people.noSync')}
          </Text>
        )}
        {sync.data !== null && sync.data.length > 0 && (
          <>
            <AttemptsHelp />
            <Table.ScrollContainer minWidth={760}>
              <Table aria-label={t('nav.sync')} data-testid="sync-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('events.col.device')}</Table.Th>
                    <Table.Th>{t('sync.col.action')}</Table.Th>
                    <Table.Th>{t('sync.col.state')}</Table.Th>
                    <Table.Th>{t('sync.col.attempts')}</Table.Th>
                    <Table.Th>{t('sync.col.next')}</Table.Th>
                    <Table.Th>{t('sync.col.reason')}</Table.Th>
                    <Table.Th>{t('people.updated')}</Table.Th>
                    {canEdit && <Table.Th>{t('sync.retry')}</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {sync.data.map((row) => {
                    const name = deviceName.get(row.deviceId) ?? row.sn;
                    return (
                      <Table.Tr key={row.deviceId} data-testid="sync-row">
                        <Table.Td>
                          {name}
                          <Text size="xs" c="dimmed">
                            <Serial sn={row.sn} />
                          </Text>
                        </Table.Td>
                        <Table.Td>{taskActionLabel(row.action)}</Table.Td>
                        <Table.Td>
                          <SyncStateBadge
                            state={row.state}
                            testId="sync-state"
                            waitingForPhoto={isWaitingForPhoto({
                              state: row.state,
                              error: row.error ?? null,
                            })}
                          />
                        </Table.Td>
                        <Table.Td data-testid="sync-attempts">{row.attempts}</Table.Td>
                        <Table.Td data-testid="sync-next">
                          <NextAttempt task={row} />
                        </Table.Td>
                        <Table.Td data-testid="sync-message">
                          {/* Waiting for a photo is a state (its badge says it), not a failure. */}
                          {isWaitingForPhoto({ state: row.state, error: row.error ?? null })
                            ? '—'
                            : lastFailureText(row.error)}
                        </Table.Td>
                        <Table.Td>{formatTime(row.updatedAt)}</Table.Td>
                        {canEdit && (
                          <Table.Td>
                            <RetryButton
                              task={{ state: row.state, error: row.error ?? null }}
                              busy={busy === row.id}
                              onClick={() => void retry(row.id, name)}
                              label={t('people.retryOn', { name })}
                            />
                          </Table.Td>
                        )}
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </>
        )}
      </Stack>
    </Card>
  );
}
