import type { SyncState } from '../../platform/db/business-models.js';
import type { Models } from '../../platform/db/models.js';

/** A task stored as failed with this code waits for the person's photo: nothing failed. */
export const NO_PHOTO = 'no_photo';

/** `{}` for a superadmin (every organization), else the administrator's organization. */
export type OrgScope = { organizationId?: string };

export interface TaskState {
  id: string;
  personId: string;
  state: SyncState;
  errorCode: string | null;
}

/**
 * Every task of these people (one per device), id and state only: `sync_tasks_person_device`
 * leads with the person, so 100 people cost 100 short index ranges whatever the table's size.
 */
export async function taskStatesOf(
  models: Pick<Models, 'SyncTask'>,
  scope: OrgScope,
  personIds: readonly string[],
): Promise<TaskState[]> {
  if (personIds.length === 0) return [];
  return models.SyncTask.findAll({
    attributes: ['id', 'personId', 'state', 'errorCode'],
    where: { personId: [...new Set(personIds)], ...scope },
    raw: true,
  });
}

/** Current names by id; a deleted person is absent. */
export async function personNames(
  models: Pick<Models, 'Person'>,
  personIds: readonly string[],
): Promise<Map<string, string>> {
  if (personIds.length === 0) return new Map();
  const rows = await models.Person.findAll({
    attributes: ['id', 'name'],
    where: { id: [...new Set(personIds)] },
    raw: true,
  });
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * Tasks by device and state, for devices of the scope: `sync_tasks_device_due` leads with the
 * device and the state, so each count is an index range.
 */
export async function taskCountsOf(
  models: Pick<Models, 'SyncTask' | 'Device'>,
  scope: OrgScope,
  deviceIds: readonly string[],
): Promise<{
  devices: string[];
  counts: { deviceId: string; state: SyncState; count: number }[];
  /** Of the failed ones, those waiting for a photo, by device (absent: none). */
  waitingPhoto: Map<string, number>;
}> {
  if (deviceIds.length === 0) return { devices: [], counts: [], waitingPhoto: new Map() };
  const devices = (
    await models.Device.findAll({
      attributes: ['id'],
      where: { id: [...new Set(deviceIds)], ...scope },
      raw: true,
    })
  ).map((d) => d.id);
  if (devices.length === 0) return { devices, counts: [], waitingPhoto: new Map() };
  const rows = (await models.SyncTask.count({
    where: { deviceId: devices },
    group: ['deviceId', 'state'],
  })) as unknown as { deviceId: string; state: SyncState; count: number | string }[];
  return {
    devices,
    counts: rows.map((r) => ({ ...r, count: Number(r.count) })),
    waitingPhoto: await waitingPhotoByDevice(models, devices),
  };
}

/** Failed tasks waiting for a photo, by device: the same index range, failed rows only. */
export async function waitingPhotoByDevice(
  models: Pick<Models, 'SyncTask'>,
  deviceIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = (await models.SyncTask.count({
    where: { deviceId: [...deviceIds], state: 'failed', errorCode: NO_PHOTO },
    group: ['deviceId'],
  })) as unknown as { deviceId: string; count: number | string }[];
  return new Map(rows.map((r) => [r.deviceId, Number(r.count)]));
}
