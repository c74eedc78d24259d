import { Badge, Text } from '@mantine/core';
import type { SyncState } from '@svc/shared';

const stateColor: Record<SyncState, string> = {
  pending: 'yellow',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
};

/** What a task does on its device, in the site's words. */
export const taskActionLabel = (action: 'put' | 'delete'): string =>
  action === 'put' ? 'Add / update' : 'Remove';

/** The reason of a task's last failure, or a dash when it has none. */
export const lastFailureText = (error: { code: string; message: string } | null | undefined) =>
  error ? error.message || error.code : '—';

/** A task's state as a badge (never truncated: its text is one short word). */
export function SyncStateBadge({ state, testId }: { state: SyncState; testId: string }) {
  return (
    <Badge color={stateColor[state]} variant="light" data-testid={testId}>
      {state}
    </Badge>
  );
}

/**
 * What the attempts column counts, said once above the table: a task that succeeded after
 * failures keeps its count, which otherwise reads like a contradiction.
 */
export function AttemptsHelp() {
  return (
    <Text size="sm" c="dimmed" data-testid="attempts-help">
      <b>Failed attempts</b> counts the tries that failed since the task last changed or was
      retried; a success does not add one. “Succeeded” after 5 failed attempts means the sixth try
      got through. At 8 the task stops and waits for a retry.
    </Text>
  );
}

/** "in 12 s", "in 3 min", "now" — when a pending task is tried next. */
export function formatNextAttempt(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds <= 0) return 'now';
  if (seconds < 90) return `in ${seconds} s`;
  return `in ${Math.round(seconds / 60)} min`;
}
