/** The synchronization API the /sync page, the person page and the people list use. */
import {
  devicesSyncOut,
  peopleSyncOut,
  syncTaskList,
  syncTaskOut,
  type PeopleSyncOut,
  type SyncLane,
  type SyncState,
  type SyncTaskOut,
} from '@svc/shared';
import { request, withQuery } from '../api';

export interface TaskFilter {
  state?: SyncState;
  deviceId?: string;
  personId?: string;
  lane?: SyncLane;
  /** `no_photo`: only the tasks waiting for a photo; `other`: all but those. */
  reason?: 'no_photo' | 'other';
}

export function listTasks(
  filter: TaskFilter,
  page: number,
  pageSize: number,
  signal?: AbortSignal,
): Promise<{ items: SyncTaskOut[]; total: number }> {
  return request('GET', withQuery('/api/sync/tasks', { ...filter, page, pageSize }), {
    schema: syncTaskList,
    signal,
  });
}

/** The /sync page's cards: the four states, with the tasks waiting for a photo on their own. */
export type TaskCount = SyncState | 'waiting';

/** The filter of each card: "failed" leaves out the tasks waiting for a photo (nothing failed). */
export const countFilters: Record<TaskCount, Pick<TaskFilter, 'state' | 'reason'>> = {
  failed: { state: 'failed', reason: 'other' },
  waiting: { state: 'failed', reason: 'no_photo' },
  pending: { state: 'pending' },
  running: { state: 'running' },
  succeeded: { state: 'succeeded' },
};

/** How many tasks match the filter for each card (one-row lists, their totals). */
export async function countTasks(
  filter: Omit<TaskFilter, 'state' | 'reason'>,
  signal?: AbortSignal,
): Promise<Record<TaskCount, number>> {
  const entries = await Promise.all(
    Object.entries(countFilters).map(
      async ([card, f]) =>
        [card, (await listTasks({ ...filter, ...f }, 1, 1, signal)).total] as const,
    ),
  );
  return Object.fromEntries(entries) as Record<TaskCount, number>;
}

/** Tries one task again now; its failed attempts start over. */
export function retryTask(id: string): Promise<SyncTaskOut> {
  return request('POST', `/api/sync/tasks/${encodeURIComponent(id)}/retry`, {
    schema: syncTaskOut,
  });
}

export type PersonSyncCounts = PeopleSyncOut['items'][number]['counts'];

/** Tasks counted by state for each of these people (absent: no device concerns them). */
export async function getPeopleSync(
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, PersonSyncCounts>> {
  if (ids.length === 0) return new Map();
  const path = withQuery('/api/sync/people', { ids: ids.join(',') });
  const answer = await request('GET', path, { schema: peopleSyncOut, signal });
  return new Map(answer.items.map((item) => [item.personId, item.counts]));
}

/** Each device's tasks counted by state (the devices list), 100 devices a request. */
export async function getDevicesSync(
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, PersonSyncCounts>> {
  const counts = new Map<string, PersonSyncCounts>();
  for (let i = 0; i < ids.length; i += 100) {
    const path = withQuery('/api/sync/devices', { ids: ids.slice(i, i + 100).join(',') });
    const answer = await request('GET', path, { schema: devicesSyncOut, signal });
    for (const item of answer.items) counts.set(item.deviceId, item.counts);
  }
  return counts;
}
