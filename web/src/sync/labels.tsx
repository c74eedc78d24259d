import { Badge, Text } from '@mantine/core';
import type { SyncState } from '@svc/shared';
import { currentLocale, exists, t, useT } from '../i18n';
import { Tx } from '../i18n/Tx';

const stateColor: Record<SyncState, string> = {
  pending: 'yellow',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
};

/** What a task does on its device, in the site's words. */
export const taskActionLabel = (action: 'put' | 'delete'): string =>
  action === 'put' ? t('sync.action.put') : t('sync.action.delete');

type Params = Readonly<Record<string, string | number>>;

/** A failure worded from its values (issue 34): the detail, and which attempt it was. */
function fromParams(params: Params): string | undefined {
  const key = `sync.detail.${String(params.detail)}`;
  if (typeof params.detail !== 'string' || !exists(key)) return undefined;
  const detail = t(key, params);
  if (params.attempt === undefined) return detail;
  const attempt =
    params.gaveUp !== undefined ? 'gaveUp' : params.of !== undefined ? 'retrying' : 'retryingLocal';
  return t(`sync.attempt.${attempt}`, { ...params, detail });
}

/**
 * The reason of a task's last failure, or a dash when it has none. English shows the server's
 * own sentence; another language words it from its code and values, never the server's English
 * (a task failed before the values were kept says its reason by code alone).
 */
export function lastFailureText(
  error: { code: string; message: string; params?: Params | undefined } | null | undefined,
  personName?: string | null,
): string {
  if (!error) return '—';
  if (error.code === 'internal') return t('sync.error.internal');
  if (currentLocale() === 'en') return error.message || error.code;
  const worded = error.params && fromParams(error.params);
  if (worded !== undefined) return worded;
  if (error.code === 'no_photo') {
    return personName ? t('sync.error.noPhoto', { name: personName }) : t('sync.error.noPhotoAnon');
  }
  const reason = `sync.error.code.${error.code}`;
  if (exists(reason)) return t(reason);
  return t('sync.error.other', { code: error.code });
}

/**
 * A person without a photo: the task was never tried on the device and runs once a photo is
 * added. Stored as failed, shown as waiting (nothing to retry).
 */
export const isWaitingForPhoto = (task: { state: SyncState; error: { code: string } | null }) =>
  task.state === 'failed' && task.error?.code === 'no_photo';

/** A task's state as a badge (never truncated: its text is one short word). */
export function SyncStateBadge({
  state,
  testId,
  waitingForPhoto = false,
}: {
  state: SyncState;
  testId: string;
  waitingForPhoto?: boolean;
}) {
  const t = useT();
  if (waitingForPhoto) {
    return (
      <Badge color="gray" variant="light" data-testid={testId} tt="none">
        {t('sync.waitingForPhoto')}
      </Badge>
    );
  }
  return (
    <Badge color={stateColor[state]} variant="light" data-testid={testId}>
      {t(`sync.state.${state}`)}
    </Badge>
  );
}

/**
 * What the attempts column counts, said once above the table: a task that succeeded after
 * failures keeps its count, which otherwise reads like a contradiction.
 */
export function AttemptsHelp() {
  useT();
  return (
    <Text size="sm" c="dimmed" data-testid="attempts-help">
      <Tx k="sync.attemptsHelp" components={{ b: <b /> }} />
    </Text>
  );
}

/** "in 12 s", "in 3 min", "now" — when a pending task is tried next. */
export function formatNextAttempt(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds <= 0) return t('sync.next.now');
  if (seconds < 90) return t('sync.next.seconds', { count: seconds });
  return t('sync.next.minutes', { count: Math.round(seconds / 60) });
}
