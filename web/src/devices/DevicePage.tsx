import { Alert, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { SyncTaskOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { describeError } from '../messages';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { retryTask } from '../sync/api';
import { TaskTable } from '../sync/TaskTable';
import { useRetry } from '../sync/useRetry';
import { useDocumentTitle } from '../useDocumentTitle';
import { getDevice, getDeviceSync, listDeviceTasks, reconcile, retryFailed } from './api';

const route = getRouteApi('/devices/$id');

/**
 * No stream message reports a reconciliation's progress: while one runs, the page asks again
 * every 2 s (the tasks it queues again arrive as `sync` messages anyway).
 */
const RECONCILE_POLL_MS = 2_000;

export function DevicePage() {
  const { id } = route.useParams();
  const canEdit = useCanEdit();
  const device = useApiQuery(keys.device(id), (s) => getDevice(id, s));
  const [reconciling, setReconciling] = useState(false);
  const sync = useApiQuery([...keys.sync, 'device', id], (s) => getDeviceSync(id, s), {
    refetchInterval: reconciling ? RECONCILE_POLL_MS : undefined,
  });
  const tasks = useApiQuery([...keys.sync, 'tasks', id], (s) => listDeviceTasks(id, s));
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState<'retry' | 'reconcile' | null>(null);
  useDocumentTitle(device.data?.name ?? 'Device');
  const retrying = useRetry(keys.sync);
  const retryOne = (task: SyncTaskOut) =>
    void retrying.run(task.id, async () => {
      await retryTask(task.id);
      return '';
    });

  const running = sync.data?.reconcilingSince != null;
  if (reconciling && sync.data !== null && !running && busy === null) setReconciling(false);

  const act = async (which: 'retry' | 'reconcile') => {
    setBusy(which);
    setNotice(null);
    try {
      if (which === 'retry') {
        const retried = await retryFailed(id);
        setNotice({ ok: true, text: `${retried} failed task(s) will be tried again now.` });
      } else {
        const started = await reconcile(id);
        setReconciling(true);
        setNotice({
          ok: true,
          text: started.alreadyRunning
            ? 'A reconciliation was already running; following it.'
            : 'Reconciliation started.',
        });
      }
    } catch (error) {
      setNotice({ ok: false, text: describeError(error, 'other') });
    } finally {
      setBusy(null);
      await queryClient.invalidateQueries({ queryKey: keys.sync });
    }
  };

  if (device.error !== null) return <Alert color="red">{device.error}</Alert>;
  const name = device.data?.name ?? '…';
  const last = sync.data?.lastReconciliation ?? null;
  return (
    <Stack gap="lg">
      <Group justify="space-between" wrap="wrap">
        <Title order={1}>{name}</Title>
        {canEdit && (
          <Group gap="xs">
            <Button
              variant="light"
              loading={busy === 'retry'}
              disabled={sync.data?.counts.failed === 0}
              onClick={() => void act('retry')}
            >
              Retry failed
            </Button>
            <Button loading={busy === 'reconcile' || running} onClick={() => void act('reconcile')}>
              Reconcile now
            </Button>
          </Group>
        )}
      </Group>
      <Link to="/devices" size="sm">
        All devices
      </Link>
      {notice !== null && (
        <Alert color={notice.ok ? 'blue' : 'red'} data-testid="device-notice">
          {notice.text}
        </Alert>
      )}
      {device.data !== null && (
        <Text size="sm">
          {device.data.sn} · {device.data.online ? 'Online' : 'Offline'} · last heartbeat{' '}
          {formatTime(device.data.lastHeartbeatAt)}
        </Text>
      )}
      {sync.error !== null && <Alert color="red">{sync.error}</Alert>}
      {sync.data !== null && (
        <Card withBorder component="section" aria-labelledby="device-sync-title">
          <Title order={2} size="h4" id="device-sync-title" mb="sm">
            Synchronization
          </Title>
          <SimpleGrid cols={{ base: 2, sm: 6 }} data-testid="device-sync-counts">
            {(['pending', 'running', 'succeeded', 'failed'] as const).map((state) => (
              <Text key={state} size="sm" data-testid={`count-${state}`}>
                {state}: <b>{sync.data?.counts[state]}</b>
              </Text>
            ))}
            <Text size="sm">
              held: <b>{sync.data.held}</b>
            </Text>
            <Text size="sm">
              capacity: <b>{sync.data.capacity ?? '—'}</b>
            </Text>
          </SimpleGrid>
          <Text size="sm" mt="sm" data-testid="device-reconciliation">
            {running
              ? `Reconciling since ${formatTime(sync.data.reconcilingSince)}…`
              : last === null
                ? 'Never reconciled.'
                : `Last reconciliation ${formatTime(last.at)}: ${last.checked} checked, ${last.requeued} queued again, ${last.errors} error(s)${last.error ? ` — ${last.error}` : ''}`}
          </Text>
        </Card>
      )}
      <Card withBorder component="section" aria-labelledby="device-tasks-title">
        <Title order={2} size="h4" id="device-tasks-title" mb="sm">
          Tasks
        </Title>
        {tasks.error !== null && <Alert color="red">{tasks.error}</Alert>}
        {tasks.data?.items.length === 0 && <Text size="sm">No tasks for this device yet.</Text>}
        {tasks.data !== null && tasks.data.items.length > 0 && (
          <TaskTable
            tasks={tasks.data.items}
            busy={retrying.busy}
            onRetry={canEdit ? retryOne : undefined}
          />
        )}
        {retrying.problem !== null && (
          <Alert color="red" mt="sm">
            {retrying.problem}
          </Alert>
        )}
      </Card>
    </Stack>
  );
}
