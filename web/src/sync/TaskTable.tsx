import { Button, Table, Text } from '@mantine/core';
import type { SyncTaskOut } from '@svc/shared';
import { useT } from '../i18n';
import { Link } from '../nav';
import { ScrollHint } from '../components/ScrollHint';
import { formatTime } from '../people/format';
import {
  formatNextAttempt,
  isWaitingForPhoto,
  lastFailureText,
  SyncStateBadge,
  taskActionLabel,
} from './labels';
import { Serial } from '../components/Serial';
import { wrapInCell } from '../components/badgeStyles';

/**
 * A task may be tried again unless it is being pushed right now, or waits for a photo (it runs
 * by itself once the photo is added; a retry would only wait again).
 */
export const canRetry = (task: Pick<SyncTaskOut, 'state' | 'error'>) =>
  !isWaitingForPhoto(task) &&
  (task.state === 'failed' || (task.state === 'pending' && task.error !== null));

/** Retry for a task that may be tried again (canRetry); nothing otherwise. */
export function RetryButton({
  task,
  busy,
  label,
  onClick,
}: {
  task: Pick<SyncTaskOut, 'state' | 'error'>;
  busy: boolean;
  label: string;
  onClick: () => void;
}) {
  const t = useT();
  if (!canRetry(task)) return null;
  return (
    <Button size="xs" variant="light" loading={busy} onClick={onClick} aria-label={label}>
      {t('sync.retry')}
    </Button>
  );
}

/** When a task is tried next: only a pending one waits for a time. */
export function NextAttempt({ task }: { task: Pick<SyncTaskOut, 'state' | 'nextAttemptAt'> }) {
  if (task.state !== 'pending') return <>—</>;
  return (
    <>
      {formatTime(task.nextAttemptAt)}
      <Text size="xs" c="dimmed">
        {formatNextAttempt(task.nextAttemptAt)}
      </Text>
    </>
  );
}

/**
 * Tasks with the reason of their last failure in the row itself. What matters comes first (the
 * state, the reason, Retry), so a 390 px screen shows it; the rest scrolls inside the card, and
 * says so.
 */
export function TaskTable({
  tasks,
  onRetry,
  busy,
}: {
  tasks: SyncTaskOut[];
  /** Absent for a role that may not retry. */
  onRetry?: (task: SyncTaskOut) => void;
  busy: string | null;
}) {
  const t = useT();
  return (
    <>
      <ScrollHint />
      <Table.ScrollContainer minWidth={880}>
        <Table aria-label={t('device.tasks')} striped data-testid="sync-tasks">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('sync.col.state')}</Table.Th>
              <Table.Th>{t('sync.col.reason')}</Table.Th>
              {onRetry && <Table.Th>{t('sync.retry')}</Table.Th>}
              <Table.Th>{t('events.col.person')}</Table.Th>
              <Table.Th>{t('events.col.device')}</Table.Th>
              <Table.Th>{t('sync.col.action')}</Table.Th>
              <Table.Th>{t('sync.col.attempts')}</Table.Th>
              <Table.Th>{t('sync.col.next')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tasks.map((task) => (
              <Table.Tr key={task.id} data-testid="task-row" data-person={task.personId}>
                <Table.Td>
                  <SyncStateBadge
                    state={task.state}
                    testId="task-state"
                    waitingForPhoto={isWaitingForPhoto(task)}
                  />
                </Table.Td>
                <Table.Td data-testid="task-error">
                  {/* Waiting for a photo is a state (its badge says it), not a failure. */}
                  {isWaitingForPhoto(task) ? '—' : lastFailureText(task.error, task.personName)}
                </Table.Td>
                {onRetry && (
                  <Table.Td>
                    <RetryButton
                      task={task}
                      busy={busy === task.id}
                      onClick={() => onRetry(task)}
                      label={t('sync.retryLabel', {
                        name: task.personName ?? t('sync.deletedPersonLower'),
                        sn: task.sn,
                      })}
                    />
                  </Table.Td>
                )}
                <Table.Td style={wrapInCell}>
                  {task.personName === null ? (
                    <Text size="sm" c="dimmed">
                      {t('sync.deletedPerson')}
                    </Text>
                  ) : (
                    <Link to="/people/$id" params={{ id: task.personId }} size="sm">
                      {task.personName}
                    </Link>
                  )}
                </Table.Td>
                <Table.Td style={wrapInCell}>
                  <Link to="/devices/$id" params={{ id: task.deviceId }} size="sm">
                    <Serial sn={task.sn} />
                  </Link>
                </Table.Td>
                <Table.Td>
                  {taskActionLabel(task.action)}
                  <Text size="xs" c="dimmed">
                    {t(`sync.lane.${task.lane}`)}
                  </Text>
                </Table.Td>
                <Table.Td data-testid="task-attempts">{task.attempts}</Table.Td>
                <Table.Td data-testid="task-next">
                  <NextAttempt task={task} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
