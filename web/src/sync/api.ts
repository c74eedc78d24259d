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
import { request } from '../api';
import { withQuery } from '../resources';

export interface TaskFilter {
  state?: SyncState;
  deviceId?: string;
  personId?: string;
  lane?: SyncLane;
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

/** How many tasks match the filter in each state (four one-row lists, their totals). */
export async function countTasks(
  filter: Omit<TaskFilter, 'state'>,
  signal?: AbortSignal,
): Promise<Record<SyncState, number>> {
  const states = ['pending', 'running', 'succeeded', 'failed'] as const;
  const totals = await Promise.all(
    states.map(async (state) => (await listTasks({ ...filter, state }, 1, 1, signal)).total),
  );
  return { pending: totals[0]!, running: totals[1]!, succeeded: totals[2]!, failed: totals[3]! };
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
