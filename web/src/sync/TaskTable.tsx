import { Button, Table, Text } from '@mantine/core';
import type { SyncTaskOut } from '@svc/shared';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { formatNextAttempt, lastFailureText, SyncStateBadge, taskActionLabel } from './labels';

/** A task may be tried again unless it is being pushed right now. */
export const canRetry = (task: Pick<SyncTaskOut, 'state' | 'error'>) =>
  task.state === 'failed' || (task.state === 'pending' && task.error !== null);

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
  if (!canRetry(task)) return null;
  return (
    <Button size="xs" variant="light" loading={busy} onClick={onClick} aria-label={label}>
      Retry
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
 * Tasks with the reason of their last failure in the row itself. Scrolls inside its card on a
 * narrow screen instead of widening the page.
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
  return (
    <Table.ScrollContainer minWidth={880}>
      <Table aria-label="Tasks" striped data-testid="sync-tasks">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Person</Table.Th>
            <Table.Th>Device</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Failed attempts</Table.Th>
            <Table.Th>Next attempt</Table.Th>
            <Table.Th>Reason of the last failure</Table.Th>
            {onRetry && <Table.Th>Retry</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tasks.map((task) => (
            <Table.Tr key={task.id} data-testid="task-row" data-person={task.personId}>
              <Table.Td>
                {task.personName === null ? (
                  <Text size="sm" c="dimmed">
                    Deleted person
                  </Text>
                ) : (
                  <Link to="/people/$id" params={{ id: task.personId }} size="sm">
                    {task.personName}
                  </Link>
                )}
              </Table.Td>
              <Table.Td>
                <Link to="/devices/$id" params={{ id: task.deviceId }} size="sm">
                  {task.sn}
                </Link>
              </Table.Td>
              <Table.Td>
                {taskActionLabel(task.action)}
                <Text size="xs" c="dimmed">
                  {task.lane} lane
                </Text>
              </Table.Td>
              <Table.Td>
                <SyncStateBadge state={task.state} testId="task-state" />
              </Table.Td>
              <Table.Td data-testid="task-attempts">{task.attempts}</Table.Td>
              <Table.Td data-testid="task-next">
                <NextAttempt task={task} />
              </Table.Td>
              <Table.Td data-testid="task-error">{lastFailureText(task.error)}</Table.Td>
              {onRetry && (
                <Table.Td>
                  <RetryButton
                    task={task}
                    busy={busy === task.id}
                    onClick={() => onRetry(task)}
                    label={`Retry ${task.personName ?? 'deleted person'} on ${task.sn}`}
                  />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
