import {
  Alert,
  Button,
  Card,
  Group,
  Loader,
  Select,
  SimpleGrid,
  Text,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { Pages } from '../components/Pages';
import type { SyncState, SyncTaskOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { formatNumber } from '../i18n/format';
import { LiveBadge } from '../components/LiveBadge';
import { listAllDevices, retryFailed } from '../devices/api';
import { PersonPicker } from '../events/PersonPicker';
import { keys, useApiQuery } from '../query';
import type { SyncSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import {
  countFilters,
  countTasks,
  listTasks,
  retryTask,
  type TaskCount,
  type TaskFilter,
} from './api';
import { AttemptsHelp } from './labels';
import { TaskTable } from './TaskTable';
import { said } from '../said';
import { useRetry } from './useRetry';

export const SYNC_PAGE_SIZE = 50;
const STATES: SyncState[] = ['failed', 'pending', 'running', 'succeeded'];
/** The cards: tasks waiting for a photo apart from the failed ones (nothing failed there). */
const CARDS: TaskCount[] = ['failed', 'waiting', 'pending', 'running', 'succeeded'];

const route = getRouteApi('/sync');

/**
 * Synchronization tasks of every device, filtered by state, device, person and lane. Live: each
 * `sync` message of the stream invalidates `keys.sync` (live.tsx), so the counts and the rows
 * follow the worker without a reload.
 */
export function SyncPage() {
  const t = useT();
  useDocumentTitle(t('nav.sync'));
  const canEdit = useCanEdit();
  const params = route.useSearch();
  const navigate = route.useNavigate();
  const page = params.page ?? 1;
  const scope: Omit<TaskFilter, 'state' | 'reason'> = {
    deviceId: params.device,
    personId: params.person,
    lane: params.lane,
  };
  const filter: TaskFilter = { ...scope, state: params.state, reason: params.reason };
  const cardOn = (card: TaskCount) =>
    params.state === countFilters[card].state && params.reason === countFilters[card].reason;
  const go = (change: Partial<Record<keyof SyncSearchParams, string | number | null>>) => {
    const next = { ...params, page: 1, ...change };
    const text = (value: string | number | null | undefined) =>
      value === null || value === undefined || value === '' ? undefined : String(value);
    void navigate({
      search: {
        state: text(next.state) as SyncSearchParams['state'],
        device: text(next.device),
        person: text(next.person),
        lane: text(next.lane) as SyncSearchParams['lane'],
        reason: text(next.reason) as SyncSearchParams['reason'],
        page: next.page === 1 || next.page === null ? undefined : Number(next.page),
      },
    });
  };

  const devices = useApiQuery(keys.devices, (signal) => listAllDevices(signal));
  const counts = useApiQuery([...keys.sync, 'counts', scope], (s) => countTasks(scope, s), {
    keepPrevious: true,
  });
  const tasks = useApiQuery(
    [...keys.sync, 'list', filter, page],
    (s) => listTasks(filter, page, SYNC_PAGE_SIZE, s),
    { keepPrevious: true },
  );
  const { busy, problem, notice, run } = useRetry(keys.sync);
  const retryOne = (task: SyncTaskOut) =>
    void run(task.id, async () => {
      await retryTask(task.id);
      return said('sync.retriedOne', {
        name: task.personName ?? said('sync.deletedPersonLower'),
        sn: task.sn,
      });
    });
  const device = (devices.data ?? []).find((d) => d.id === params.device);
  const retryDevice = () =>
    device &&
    void run(device.id, async () => {
      const retried = await retryFailed(device.id);
      return said('sync.retriedDevice', { count: retried, name: device.name });
    });

  const pages = tasks.data === null ? 1 : Math.max(1, Math.ceil(tasks.data.total / SYNC_PAGE_SIZE));
  return (
    <>
      {/* The title row on its own (the 390 px check measures the h1's row). */}
      <Group>
        <Title order={1}>{t('nav.sync')}</Title>
      </Group>
      <Group gap="sm">
        <LiveBadge />
        <Text size="sm" c="dimmed">
          {t('sync.followsWorker')}
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }} data-testid="sync-counts">
        {CARDS.map((card) => (
          <UnstyledButton
            key={card}
            onClick={() =>
              go(
                cardOn(card)
                  ? { state: null, reason: null }
                  : {
                      state: countFilters[card].state ?? null,
                      reason: countFilters[card].reason ?? null,
                    },
              )
            }
            aria-pressed={cardOn(card)}
          >
            {/* The name starts with the visible words ("failed 2"), so speech input finds it. */}
            <Card withBorder padding="sm" bg={cardOn(card) ? 'blue.0' : undefined}>
              {/* "Failed" on screen, "failed" in the name (as before); one capital for the rest. */}
              <Text size="sm" tt={card === 'waiting' ? undefined : 'capitalize'}>
                {card === 'waiting' ? t('sync.waitingCard') : t(`sync.state.${card}`)}
              </Text>
              <Text fw={700} size="xl" data-testid={`count-${card}`}>
                {counts.data === null ? '…' : formatNumber(counts.data[card])}
              </Text>
              <VisuallyHidden>
                {t('sync.cardHidden', {
                  what: card === 'waiting' ? t('sync.waitingForPhoto') : t(`sync.state.${card}`),
                })}
              </VisuallyHidden>
            </Card>
          </UnstyledButton>
        ))}
      </SimpleGrid>
      <Group align="end">
        <Select
          label={t('sync.col.state')}
          placeholder={t('sync.anyState')}
          data={STATES.map((state) => ({ value: state, label: t(`sync.state.${state}`) }))}
          value={params.state ?? null}
          onChange={(state) => go({ state, reason: null })}
          clearable
          w={160}
        />
        <Select
          label={t('events.device')}
          placeholder={t('events.anyDevice')}
          data={(devices.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
          value={params.device ?? null}
          onChange={(value) => go({ device: value })}
          searchable
          clearable
          w={260}
        />
        <PersonPicker value={params.person ?? null} onChange={(person) => go({ person })} />
        <Select
          label={t('sync.laneLabel')}
          placeholder={t('sync.bothLanes')}
          data={[
            { value: 'priority', label: t('sync.lanePriority') },
            { value: 'bulk', label: t('sync.laneBulk') },
          ]}
          value={params.lane ?? null}
          onChange={(lane) => go({ lane })}
          clearable
          w={240}
        />
        {(tasks.loading || counts.loading) && (
          <Loader size="sm" role="status" aria-label={t('sync.loading')} />
        )}
      </Group>
      {canEdit && (
        <Group gap="sm">
          <Button
            variant="light"
            disabled={device === undefined || counts.data?.failed === 0}
            loading={device !== undefined && busy === device.id}
            onClick={retryDevice}
          >
            {device === undefined
              ? t('sync.retryDeviceNone')
              : t('sync.retryDevice', { name: device.name })}
          </Button>
          {device === undefined && (
            <Text size="sm" c="dimmed">
              {t('sync.chooseDevice')}
            </Text>
          )}
        </Group>
      )}
      {notice !== null && (
        <Alert color="blue" role="status" data-testid="sync-notice">
          {notice}
        </Alert>
      )}
      {problem !== null && (
        <Alert color="red" data-testid="sync-problem">
          {problem}
        </Alert>
      )}
      {tasks.error !== null && (
        <Alert color="red" title={t('sync.notLoaded')} data-testid="sync-error">
          {tasks.error}
        </Alert>
      )}
      <AttemptsHelp />
      {tasks.data !== null && (
        <Card withBorder padding="xs" component="section" aria-label={t('device.tasks')}>
          <Text size="sm" c="dimmed" data-testid="sync-total" mb="xs">
            {t('sync.total', { count: tasks.data.total })}
          </Text>
          {tasks.data.items.length === 0 ? (
            <Text data-testid="sync-empty">{t('sync.noMatch')}</Text>
          ) : (
            <TaskTable
              tasks={tasks.data.items}
              busy={busy}
              onRetry={canEdit ? retryOne : undefined}
            />
          )}
          <Pages
            mt="sm"
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) => go({ page: next })}
            hideWithOnePage
          />
        </Card>
      )}
    </>
  );
}
