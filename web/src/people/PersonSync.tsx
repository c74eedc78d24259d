import { Alert, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useCanEdit } from '../access';
import { formatTime } from './format';
import { keys, useApiQuery } from '../query';
import { getPersonSync, listAllDevices } from '../resources';
import { retryTask } from '../sync/api';
import { AttemptsHelp, lastFailureText, SyncStateBadge, taskActionLabel } from '../sync/labels';
import { NextAttempt, RetryButton } from '../sync/TaskTable';
import { useRetry } from '../sync/useRetry';

/**
 * Where this person stands on every device, with a retry per device. The live stream's `sync`
 * messages about this person invalidate the query (live.tsx): no Refresh needed, but offered.
 */
export function PersonSync({ personId }: { personId: string }) {
  const canEdit = useCanEdit();
  const sync = useApiQuery(keys.personSync(personId), (signal) => getPersonSync(personId, signal));
  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const deviceName = new Map((devices.data ?? []).map((device) => [device.id, device.name]));
  const { busy, problem, notice, run } = useRetry(keys.personSync(personId));
  const retry = (taskId: string, device: string) =>
    run(taskId, async () => {
      await retryTask(taskId);
      return `${device} will be tried again now.`;
    });

  return (
    <Card withBorder component="section" aria-labelledby="person-sync-title">
      <Stack gap="xs">
        <Group gap="sm">
          <Title order={2} size="h3" id="person-sync-title">
            Devices
          </Title>
          <Button variant="subtle" size="xs" onClick={sync.reload} loading={sync.loading}>
            Refresh
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
            No device holds or expects this person.
          </Text>
        )}
        {sync.data !== null && sync.data.length > 0 && (
          <>
            <AttemptsHelp />
            <Table.ScrollContainer minWidth={760}>
              <Table aria-label="Synchronization" data-testid="sync-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Device</Table.Th>
                    <Table.Th>Action</Table.Th>
                    <Table.Th>State</Table.Th>
                    <Table.Th>Failed attempts</Table.Th>
                    <Table.Th>Next attempt</Table.Th>
                    <Table.Th>Reason of the last failure</Table.Th>
                    <Table.Th>Updated</Table.Th>
                    {canEdit && <Table.Th>Retry</Table.Th>}
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
                            {row.sn}
                          </Text>
                        </Table.Td>
                        <Table.Td>{taskActionLabel(row.action)}</Table.Td>
                        <Table.Td>
                          <SyncStateBadge state={row.state} testId="sync-state" />
                        </Table.Td>
                        <Table.Td data-testid="sync-attempts">{row.attempts}</Table.Td>
                        <Table.Td data-testid="sync-next">
                          <NextAttempt task={row} />
                        </Table.Td>
                        <Table.Td data-testid="sync-message">{lastFailureText(row.error)}</Table.Td>
                        <Table.Td>{formatTime(row.updatedAt)}</Table.Td>
                        {canEdit && (
                          <Table.Td>
                            <RetryButton
                              task={{ state: row.state, error: row.error ?? null }}
                              busy={busy === row.id}
                              onClick={() => void retry(row.id, name)}
                              label={`Retry on ${name}`}
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
