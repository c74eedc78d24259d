import type { SyncState } from '../../db/business-models.js';
import type { Models } from '../../db/models.js';

/** `{}` for a superadmin (every organization), else the administrator's organization. */
export type OrgScope = { organizationId?: string };

export interface TaskState {
  id: string;
  personId: string;
  state: SyncState;
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
    attributes: ['id', 'personId', 'state'],
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
): Promise<{ devices: string[]; counts: { deviceId: string; state: SyncState; count: number }[] }> {
  if (deviceIds.length === 0) return { devices: [], counts: [] };
  const devices = (
    await models.Device.findAll({
      attributes: ['id'],
      where: { id: [...new Set(deviceIds)], ...scope },
      raw: true,
    })
  ).map((d) => d.id);
  if (devices.length === 0) return { devices, counts: [] };
  const rows = (await models.SyncTask.count({
    where: { deviceId: devices },
    group: ['deviceId', 'state'],
  })) as unknown as { deviceId: string; state: SyncState; count: number | string }[];
  return { devices, counts: rows.map((r) => ({ ...r, count: Number(r.count) })) };
}
