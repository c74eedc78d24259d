/** The dashboard's counts, each from an existing list endpoint asked for one row and its total. */
import { recognitionEventList, syncTaskList, type DeliveryStateName } from '@svc/shared';
import { request, withQuery } from '../api';
import { listAllDevices } from '../devices/api';
import { listPeople } from '../people/api';
import { listNodes } from '../system/api';
import { countFilters } from '../sync/api';

export interface Count {
  total: number;
  /** The server stopped counting (people only): show "10,000+". */
  capped: boolean;
}

export async function countPeople(signal?: AbortSignal): Promise<Count> {
  const answer = await listPeople({ page: 1, pageSize: 1 }, signal);
  return { total: answer.total, capped: answer.totalCapped };
}

export async function countDevices(
  signal?: AbortSignal,
): Promise<{ online: number; total: number }> {
  const devices = await listAllDevices(signal);
  return { online: devices.filter((d) => d.online).length, total: devices.length };
}

export async function countTerminals(
  signal?: AbortSignal,
): Promise<{ enrollment: number; display: number }> {
  const nodes = await listNodes(signal);
  return {
    enrollment: nodes.filter((n) => n.kind === 'enrollment').length,
    display: nodes.filter((n) => n.kind === 'display').length,
  };
}

/** Counted as the /sync page's cards count them ("failed" without those waiting for a photo). */
export async function countSyncTasks(
  card: 'pending' | 'failed' | 'waiting',
  signal?: AbortSignal,
): Promise<number> {
  const path = withQuery('/api/sync/tasks', { ...countFilters[card], page: 1, pageSize: 1 });
  return (await request('GET', path, { schema: syncTaskList, signal })).total;
}

export async function countEvents(
  deliveryState: DeliveryStateName,
  signal?: AbortSignal,
): Promise<number> {
  const path = withQuery('/api/recognition/events', { deliveryState, page: 1, pageSize: 1 });
  return (await request('GET', path, { schema: recognitionEventList, signal })).total;
}
