import {
  Alert,
  Button,
  Card,
  Group,
  Loader,
  Pagination,
  Select,
  SimpleGrid,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import type { SyncState, SyncTaskOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { LiveBadge } from '../components/LiveBadge';
import { retryFailed } from '../devices/api';
import { PersonPicker } from '../events/PersonPicker';
import { formatTotal } from '../people/format';
import { keys, useApiQuery } from '../query';
import { listAllDevices } from '../resources';
import type { SyncSearchParams } from '../routes';
import { useDocumentTitle } from '../useDocumentTitle';
import { countTasks, listTasks, retryTask, type TaskFilter } from './api';
import { AttemptsHelp } from './labels';
import { TaskTable } from './TaskTable';
import { useRetry } from './useRetry';

export const SYNC_PAGE_SIZE = 50;
const STATES: SyncState[] = ['failed', 'pending', 'running', 'succeeded'];

const route = getRouteApi('/sync');

/**
 * Synchronization tasks of every device, filtered by state, device, person and lane. Live: each
 * `sync` message of the stream invalidates `keys.sync` (live.tsx), so the counts and the rows
 * follow the worker without a reload.
 */
export function SyncPage() {
  useDocumentTitle('Synchronization');
  const canEdit = useCanEdit();
  const params = route.useSearch();
  const navigate = route.useNavigate();
  const page = params.page ?? 1;
  const scope: Omit<TaskFilter, 'state'> = {
    deviceId: params.device,
    personId: params.person,
    lane: params.lane,
  };
  const filter: TaskFilter = { ...scope, state: params.state };
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
      return `${task.personName ?? 'The deleted person'} on ${task.sn} will be tried again now.`;
    });
  const device = (devices.data ?? []).find((d) => d.id === params.device);
  const retryDevice = () =>
    device &&
    void run(device.id, async () => {
      const retried = await retryFailed(device.id);
      return `${retried} failed task(s) of ${device.name} will be tried again now.`;
    });

  const pages = tasks.data === null ? 1 : Math.max(1, Math.ceil(tasks.data.total / SYNC_PAGE_SIZE));
  return (
    <>
      {/* The title row on its own (the 390 px check measures the h1's row). */}
      <Group>
        <Title order={1}>Synchronization</Title>
      </Group>
      <Group gap="sm">
        <LiveBadge />
        <Text size="sm" c="dimmed">
          Counts and tasks follow the worker as it pushes.
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 4 }} data-testid="sync-counts">
        {STATES.map((state) => (
          <UnstyledButton
            key={state}
            onClick={() => go({ state: params.state === state ? null : state })}
            aria-pressed={params.state === state}
            aria-label={`${state}: ${counts.data?.[state] ?? '…'} task(s); show only ${state}`}
          >
            <Card withBorder padding="sm" bg={params.state === state ? 'blue.0' : undefined}>
              <Text size="sm" tt="capitalize">
                {state}
              </Text>
              <Text fw={700} size="xl" data-testid={`count-${state}`}>
                {counts.data === null ? '…' : formatTotal(counts.data[state], false)}
              </Text>
            </Card>
          </UnstyledButton>
        ))}
      </SimpleGrid>
      <Group align="end">
        <Select
          label="State"
          placeholder="Any state"
          data={STATES}
          value={params.state ?? null}
          onChange={(state) => go({ state })}
          clearable
          w={160}
        />
        <Select
          label="Device"
          placeholder="Any device"
          data={(devices.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
          value={params.device ?? null}
          onChange={(value) => go({ device: value })}
          searchable
          clearable
          w={260}
        />
        <PersonPicker value={params.person ?? null} onChange={(person) => go({ person })} />
        <Select
          label="Lane"
          placeholder="Both lanes"
          data={[
            { value: 'priority', label: 'Priority (single changes)' },
            { value: 'bulk', label: 'Bulk (imports, new devices)' },
          ]}
          value={params.lane ?? null}
          onChange={(lane) => go({ lane })}
          clearable
          w={240}
        />
        {(tasks.loading || counts.loading) && <Loader size="sm" aria-label="Loading tasks" />}
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
              ? 'Retry all failed of a device'
              : `Retry all failed of ${device.name}`}
          </Button>
          {device === undefined && (
            <Text size="sm" c="dimmed">
              Choose a device to retry all its failed tasks at once.
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
        <Alert color="red" title="The tasks could not be loaded" data-testid="sync-error">
          {tasks.error}
        </Alert>
      )}
      <AttemptsHelp />
      {tasks.data !== null && (
        <Card withBorder padding="xs" component="section" aria-label="Tasks">
          <Text size="sm" c="dimmed" data-testid="sync-total" mb="xs">
            {formatTotal(tasks.data.total, false)} {tasks.data.total === 1 ? 'task' : 'tasks'}
          </Text>
          {tasks.data.items.length === 0 ? (
            <Text data-testid="sync-empty">No task matches.</Text>
          ) : (
            <TaskTable
              tasks={tasks.data.items}
              busy={busy}
              onRetry={canEdit ? retryOne : undefined}
            />
          )}
          <Pagination
            mt="sm"
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) => go({ page: next })}
            hideWithOnePage
            aria-label="Pages"
          />
        </Card>
      )}
    </>
  );
}
