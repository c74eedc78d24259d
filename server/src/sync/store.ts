import { Op, type Transaction, type WhereOptions } from 'sequelize';
import type { DeviceRow, PersonRow, SyncTaskRow } from '../platform/db/business-models.js';
import type { Models } from '../platform/db/models.js';
import { retryValues } from './tasks/rows.js';

// The model calls behind the sync API (service.ts): the tasks it lists and retries, the devices
// and people it names. `organizationId` null is a superadmin (every organization).

type Deps = { models: Pick<Models, 'Device' | 'Person' | 'SyncTask'> };
type Org = string | null;

const inOrg = (organizationId: Org) => (organizationId ? { organizationId } : {});

/** Device serial numbers by id. */
export async function deviceSns(deps: Deps, deviceIds: readonly string[]) {
  const rows = await deps.models.Device.findAll({
    attributes: ['id', 'sn'],
    where: { id: [...new Set(deviceIds)] },
    raw: true,
  });
  return new Map(rows.map((r) => [r.id, r.sn]));
}

export function findDevice(deps: Deps, org: Org, id: string): Promise<DeviceRow | null> {
  return deps.models.Device.findOne({ where: { id, ...inOrg(org) } });
}

export function findPerson(deps: Deps, org: Org, id: string): Promise<PersonRow | null> {
  return deps.models.Person.findOne({ where: { id, ...inOrg(org) } });
}

export function findTask(deps: Deps, org: Org, id: string): Promise<SyncTaskRow | null> {
  return deps.models.SyncTask.findOne({ where: { id, ...inOrg(org) } });
}

/** The ids of the organization's devices. */
export async function deviceIdsOf(deps: Deps, org: Org): Promise<string[]> {
  const rows = await deps.models.Device.findAll({
    attributes: ['id'],
    where: inOrg(org),
    raw: true,
  });
  return rows.map((d) => d.id);
}

/** A page of tasks, newest change first, and how many match. */
export function pageOfTasks(
  deps: Deps,
  where: WhereOptions<SyncTaskRow>,
  { page, pageSize }: { page: number; pageSize: number },
) {
  return deps.models.SyncTask.findAndCountAll({
    where,
    order: [
      ['updatedAt', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: pageSize,
    offset: (page - 1) * pageSize,
  });
}

/** A person's tasks, one per device. */
export function tasksOfPerson(deps: Deps, personId: string): Promise<SyncTaskRow[]> {
  return deps.models.SyncTask.findAll({ where: { personId }, order: [['deviceId', 'ASC']] });
}

/** How many people the device holds, as far as the tasks know. */
export function heldCount(deps: Deps, deviceId: string): Promise<number> {
  return deps.models.SyncTask.count({
    where: { deviceId, action: 'put', resultVersion: { [Op.ne]: null } },
  });
}

/** The task tried again from now, attempts starting over. */
export async function retryTaskRow(
  task: SyncTaskRow,
  now: Date,
  transaction: Transaction,
): Promise<void> {
  await task.update(retryValues(now), { transaction });
}

/** These tasks tried again from now; resolves with how many. */
export async function retryTasks(
  deps: Deps,
  where: WhereOptions<SyncTaskRow>,
  now: Date,
  transaction: Transaction,
): Promise<number> {
  const [count] = await deps.models.SyncTask.update(retryValues(now), { where, transaction });
  return count;
}
