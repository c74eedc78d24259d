import { Alert, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import type { SyncTaskOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useT } from '../i18n';
import { Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { useCanEdit } from '../access';
import { listTasks, retryTask } from '../sync/api';
import { useRetry } from '../sync/useRetry';
import { TaskTable } from '../sync/TaskTable';
import { useDocumentTitle } from '../useDocumentTitle';

const route = getRouteApi('/people/$id/erasure');

/** A device's task is done erasing once it is a `delete` the device acknowledged. */
const erased = (task: SyncTaskOut) => task.action === 'delete' && task.state === 'succeeded';

type Progress = 'done' | 'failed' | 'running';

function progressOf(tasks: SyncTaskOut[]): Progress {
  if (tasks.every(erased)) return 'done';
  return tasks.some((t) => t.state === 'failed') ? 'failed' : 'running';
}

/**
 * Follows a deleted person's erasure from the devices: their tasks (a deleted person keeps one
 * per device, turned into `delete` by the planner) until every device has acknowledged it. The
 * stream's `sync` messages invalidate `keys.sync`, so the page moves on by itself.
 */
export function ErasurePage() {
  const { id } = route.useParams();
  const t = useT();
  useDocumentTitle(t('erasure.title'));
  const tasks = useApiQuery([...keys.sync, 'erasure', id], (signal) =>
    listTasks({ personId: id }, 1, 200, signal),
  );
  const items = tasks.data?.items ?? [];
  const progress = tasks.data === null ? null : progressOf(items);
  const left = items.filter((t) => !erased(t)).length;
  const canEdit = useCanEdit();
  const { busy, problem, run } = useRetry(keys.sync);
  const retry = (task: SyncTaskOut) =>
    void run(task.id, async () => {
      await retryTask(task.id);
      return t('people.retried', { device: task.sn });
    });

  return (
    <Stack>
      <Link to="/people">{t('people.back')}</Link>
      {/* The title row on its own (the 390 px check measures the h1's row). */}
      <Group>
        <Title order={1}>{t('erasure.heading')}</Title>
      </Group>
      <Text>{t('erasure.intro')}</Text>
      {tasks.error !== null && <Alert color="red">{tasks.error}</Alert>}
      {problem !== null && (
        <Alert color="red" data-testid="sync-problem">
          {problem}
        </Alert>
      )}
      {tasks.data === null && tasks.loading && (
        <Loader role="status" aria-label={t('erasure.loading')} />
      )}
      {progress !== null && (
        <Alert
          role="status"
          data-testid="erasure-status"
          color={progress === 'done' ? 'green' : progress === 'failed' ? 'red' : 'blue'}
          title={
            progress === 'done'
              ? t('erasure.done')
              : progress === 'failed'
                ? t('erasure.failed')
                : t('erasure.erasing')
          }
        >
          {progress === 'done'
            ? items.length === 0
              ? t('erasure.noDevice')
              : t('erasure.erased', { count: items.length })
            : progress === 'failed'
              ? t('erasure.failedText')
              : t('erasure.waiting', { left, count: items.length })}
        </Alert>
      )}
      {items.length > 0 && (
        <Card withBorder padding="xs" component="section" aria-label={t('nav.devices')}>
          <TaskTable tasks={items} busy={busy} onRetry={canEdit ? retry : undefined} />
        </Card>
      )}
    </Stack>
  );
}
