import { Alert, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { wrapAnywhere } from '../components/badgeStyles';
import type { ReconciliationSummary, SyncTaskOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useCanEdit } from '../access';
import { currentLocale, exists, t, useT } from '../i18n';
import { Link } from '../nav';
import { KeyRefused } from './KeyRefused';
import { formatTime } from '../people/format';
import { keys, queryClient, useApiQuery } from '../query';
import { retryTask } from '../sync/api';
import { TaskTable } from '../sync/TaskTable';
import { useRetry } from '../sync/useRetry';
import { useDocumentTitle } from '../useDocumentTitle';
import { getDevice, getDeviceSync, listDeviceTasks, reconcile, retryFailed } from './api';
import { DeviceClock } from './DeviceClock';
import { Tx } from '../i18n/Tx';
import { said, saidFailure, say, type Said } from '../said';

const bold = { b: <b /> };

const route = getRouteApi('/devices/$id');

/**
 * No stream message reports a reconciliation's progress: while one runs, the page asks again
 * every 2 s (the tasks it queues again arrive as `sync` messages anyway).
 */
const RECONCILE_POLL_MS = 2_000;
const SYNC_STATES = ['pending', 'running', 'succeeded', 'failed'] as const;

function reconciliationText(last: ReconciliationSummary): string {
  const text = t('device.lastReconciliation', {
    time: formatTime(last.at),
    checked: last.checked,
    requeued: last.requeued,
    errors: last.errors,
  });
  if (!last.error) return text;
  return t('device.withError', { text, error: reconciliationError(last) });
}

/** The reconciliation's problem: the server's English in English, else worded from its values. */
function reconciliationError(last: ReconciliationSummary): string {
  if (currentLocale() === 'en') return last.error ?? '';
  const detail = last.errorParams?.detail;
  const key = `sync.detail.${String(detail)}`;
  if (typeof detail === 'string' && exists(key)) return t(key, last.errorParams);
  return t('sync.detail.reconciliation_broken');
}

export function DevicePage() {
  const { id } = route.useParams();
  const t = useT();
  const canEdit = useCanEdit();
  const device = useApiQuery(keys.device(id), (s) => getDevice(id, s));
  const [reconciling, setReconciling] = useState(false);
  const sync = useApiQuery([...keys.sync, 'device', id], (s) => getDeviceSync(id, s), {
    refetchInterval: reconciling ? RECONCILE_POLL_MS : undefined,
  });
  const tasks = useApiQuery([...keys.sync, 'tasks', id], (s) => listDeviceTasks(id, s));
  const [notice, setNotice] = useState<{ ok: boolean; text: Said } | null>(null);
  const [busy, setBusy] = useState<'retry' | 'reconcile' | null>(null);
  useDocumentTitle(device.data?.name ?? t('devices.device'));
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
        setNotice({ ok: true, text: said('device.retried', { count: retried }) });
      } else {
        const started = await reconcile(id);
        setReconciling(true);
        setNotice({
          ok: true,
          text: said(
            started.alreadyRunning ? 'device.alreadyReconciling' : 'device.reconcileStarted',
          ),
        });
      }
    } catch (error) {
      setNotice({ ok: false, text: saidFailure(error) });
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
        <Title order={1} style={wrapAnywhere}>
          {name}
        </Title>
        {canEdit && (
          <Group gap="xs">
            <Button
              variant="light"
              loading={busy === 'retry'}
              disabled={sync.data?.counts.failed === 0}
              onClick={() => void act('retry')}
            >
              {t('device.retryFailed')}
            </Button>
            <Button loading={busy === 'reconcile' || running} onClick={() => void act('reconcile')}>
              {t('device.reconcile')}
            </Button>
          </Group>
        )}
      </Group>
      <Link to="/devices" size="sm">
        {t('device.all')}
      </Link>
      {notice !== null && (
        <Alert color={notice.ok ? 'blue' : 'red'} data-testid="device-notice">
          {say(notice.text)}
        </Alert>
      )}
      {device.data !== null && (
        <Text size="sm" style={wrapAnywhere}>
          {t('device.summary', {
            sn: device.data.sn,
            state: device.data.online ? t('devices.online') : t('devices.offline'),
            time: formatTime(device.data.lastHeartbeatAt),
          })}
        </Text>
      )}
      {device.data !== null && <KeyRefused device={device.data} />}
      {device.data !== null && <DeviceClock device={device.data} />}
      {sync.error !== null && <Alert color="red">{sync.error}</Alert>}
      {sync.data !== null && (
        <Card withBorder component="section" aria-labelledby="device-sync-title">
          <Title order={2} size="h4" id="device-sync-title" mb="sm">
            {t('nav.sync')}
          </Title>
          <SimpleGrid cols={{ base: 2, sm: 6 }} data-testid="device-sync-counts">
            {SYNC_STATES.map((state) => (
              <Text key={state} size="sm" data-testid={`count-${state}`}>
                <Tx
                  k="device.count"
                  values={{ what: t(`sync.state.${state}`), count: sync.data?.counts[state] }}
                  components={bold}
                />
              </Text>
            ))}
            <Text size="sm" data-testid="count-waitingPhoto">
              {t('syncCounts.waitingPhotoLabel')}: <b>{sync.data.counts.waitingPhoto}</b>
            </Text>
            <Text size="sm">
              <Tx
                k="device.count"
                values={{ what: t('device.held'), count: sync.data.held }}
                components={bold}
              />
            </Text>
            <Text size="sm">
              <Tx
                k="device.count"
                values={{ what: t('device.capacity'), count: sync.data.capacity ?? '—' }}
                components={bold}
              />
            </Text>
          </SimpleGrid>
          <Text size="sm" mt="sm" data-testid="device-reconciliation">
            {running
              ? t('device.reconcilingSince', { time: formatTime(sync.data.reconcilingSince) })
              : last === null
                ? t('device.neverReconciled')
                : reconciliationText(last)}
          </Text>
        </Card>
      )}
      <Card withBorder component="section" aria-labelledby="device-tasks-title">
        <Title order={2} size="h4" id="device-tasks-title" mb="sm">
          {t('device.tasks')}
        </Title>
        {tasks.error !== null && <Alert color="red">{tasks.error}</Alert>}
        {tasks.data?.items.length === 0 && <Text size="sm">{t('device.noTasks')}</Text>}
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
