import type { DevicesSyncOut, PeopleSyncOut } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import { NO_PHOTO, taskCountsOf, taskStatesOf, type OrgScope } from './store.js';

type Counts = PeopleSyncOut['items'][number]['counts'];

/**
 * How each person's synchronization stands, counted over their tasks (one per device) by the
 * state the API shows (`running` while this process pushes it). People without a task are left
 * out: no device concerns them.
 */
export async function peopleSyncHealth(
  ctx: Pick<AppContext, 'models' | 'sync'>,
  scope: OrgScope,
  personIds: readonly string[],
): Promise<PeopleSyncOut> {
  const byPerson = new Map<string, Counts>();
  for (const task of await taskStatesOf(ctx.models, scope, personIds)) {
    let counts = byPerson.get(task.personId);
    if (!counts) {
      counts = { pending: 0, running: 0, succeeded: 0, failed: 0, waitingPhoto: 0 };
      byPerson.set(task.personId, counts);
    }
    // Waiting for the person's photo is no failure: counted apart (issue 30, item 9).
    if (task.state === 'failed' && task.errorCode === NO_PHOTO) counts.waitingPhoto++;
    else counts[ctx.sync.inFlight.shown(task)]++;
  }
  return { items: [...byPerson].map(([personId, counts]) => ({ personId, counts })) };
}

/**
 * Each device's tasks counted by the state the API shows: pending in the database but pushed
 * by this process right now counts as `running` (as `GET /api/sync/devices/{id}` does).
 */
export async function devicesSyncCounts(
  ctx: Pick<AppContext, 'models' | 'sync'>,
  scope: OrgScope,
  deviceIds: readonly string[],
): Promise<DevicesSyncOut> {
  const { devices, counts, waitingPhoto } = await taskCountsOf(ctx.models, scope, deviceIds);
  const byDevice = new Map<string, Counts>(
    devices.map((id) => [id, { pending: 0, running: 0, succeeded: 0, failed: 0, waitingPhoto: 0 }]),
  );
  for (const row of counts) {
    const entry = byDevice.get(row.deviceId);
    if (entry && row.state in entry) entry[row.state] += row.count;
  }
  for (const [deviceId, entry] of byDevice) {
    entry.waitingPhoto = waitingPhoto.get(deviceId) ?? 0;
    entry.failed -= entry.waitingPhoto;
    const pushing = Math.min(entry.pending, ctx.sync.inFlight.ids(deviceId).length);
    entry.pending -= pushing;
    entry.running += pushing;
  }
  return { items: [...byDevice].map(([deviceId, c]) => ({ deviceId, counts: c })) };
}
