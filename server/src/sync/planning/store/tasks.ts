import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import type { DeviceRow } from '../../../platform/db/business-models.js';
import { readCommittedRetried } from '../../../platform/db/deadlock.js';
import { orderedUuid, orderedUuidSql, randomHexColumn } from '../../../platform/db/ordered-ids.js';
import { sqlDate } from '../../../platform/db/sql-dates.js';
import { freshAttempts, retryValues, type Lane } from '../../tasks/rows.js';
import type { PutNeed } from '../diff.js';
import { INSERT_CHUNK, UPDATE_CHUNK } from '../../knobs.js';

/**
 * The planning wing's writes: tasks inserted, retargeted and turned into deletes, with their
 * dialect branches. Which tasks is decided in write-tasks.ts; the reads are in desired.ts.
 */
type Deps = Pick<AppContext, 'sync'>;

/** A new task to insert: a put of `p` on `device`, in `lane`. */
export interface NewTask {
  device: Pick<DeviceRow, 'id' | 'organizationId'>;
  lane: Lane;
  p: PutNeed;
}

/** New put tasks, one multi-row statement per INSERT_CHUNK (a new device's people are many). */
export async function insertTasks(deps: Deps, fresh: readonly NewTask[], now: Date) {
  const sequelize = deps.sync.db.sequelize;
  const ignore = sequelize.getDialect() === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  // With its milliseconds (a bare Date loses them on MySQL).
  const at = sqlDate(sequelize, now);
  for (let i = 0; i < fresh.length; i += INSERT_CHUNK) {
    // A concurrent planner (another process) may insert the same pair first: it wrote the
    // same target, so the duplicate is dropped.
    const chunk = fresh.slice(i, i + INSERT_CHUNK);
    await sequelize.query(
      `${ignore} INTO sync_tasks (id, organization_id, person_id, device_id, action, lane, state,
        person_version, photo_sha256, attempts, next_attempt_at, created_at, updated_at)
        VALUES ${chunk.map(() => "(?, ?, ?, ?, 'put', ?, 'pending', ?, ?, 0, ?, ?, ?)").join(', ')}`,
      {
        replacements: chunk.flatMap(({ device, lane, p }) => [
          orderedUuid(),
          device.organizationId,
          p.personId,
          device.id,
          lane,
          p.version,
          p.photoSha256,
          at,
          at,
          at,
        ]),
      },
    );
  }
}

/** Existing tasks given one new put target and lane, UPDATE_CHUNK ids per statement. */
export async function retargetTasks(
  deps: Deps,
  {
    lane,
    version,
    photoSha256,
    ids,
  }: { lane: Lane; version: number; photoSha256: string | null; ids: readonly string[] },
  now: Date,
): Promise<void> {
  for (let i = 0; i < ids.length; i += UPDATE_CHUNK) {
    await deps.sync.db.models.SyncTask.update(
      {
        lane,
        ...freshAttempts(now),
        action: 'put',
        personVersion: version,
        photoSha256,
        state: 'pending' as const,
      },
      {
        where: {
          id: { [Op.in]: ids.slice(i, i + UPDATE_CHUNK) },
          // A plan whose read is older than a concurrent one's write never moves a task back
          // to an older version (versions only grow: every change a device sees raises it),
          // nor sends a task already done at this version again: a push recorded since the
          // read (at this version, perhaps newer than the task's then) is not repeated.
          [Op.not]: {
            action: 'put',
            [Op.or]: [
              { personVersion: { [Op.gt]: version } },
              { personVersion: version, state: { [Op.ne]: 'pending' } },
            ],
          },
        },
      },
    );
  }
}

/** Put tasks of people read at `version` or older turned into deletes. */
export async function deleteTasks(
  deps: Deps,
  { lane, version, ids }: { lane: Lane; version: number; ids: readonly string[] },
  now: Date,
): Promise<void> {
  for (let i = 0; i < ids.length; i += UPDATE_CHUNK) {
    await deps.sync.db.models.SyncTask.update(
      {
        lane,
        ...freshAttempts(now),
        action: 'delete',
        photoSha256: null,
        state: 'pending' as const,
      },
      {
        where: {
          id: { [Op.in]: ids.slice(i, i + UPDATE_CHUNK) },
          action: 'put',
          // Re-targeted since the read (access granted again): not this plan's to delete.
          personVersion: { [Op.lte]: version },
        },
      },
    );
  }
}

/** Devices whose missing tasks one statement can insert: same organization, spaces and lane. */
export interface MissingGroup {
  organizationId: string;
  deviceIds: string[];
  spaces: readonly string[];
  lane: Lane;
}

/** A range of person ids: from `lo` (null: the start) to before `hi` (null: the end). */
export interface IdRange {
  lo: string | null;
  hi: string | null;
}

/**
 * New tasks for every person of the group's spaces in one range of ids who has none yet on
 * one of the group's devices, by INSERT … SELECT: the rows never pass through the service.
 * One statement for all the devices of a group: the people are read once, and each person's
 * tasks land side by side in the (person, device) index (device after device, a range cost
 * SQLite twice as much per task). By ranges, so no one statement holds SQLite's connection
 * for seconds, and each range reads only its people. A concurrent planner may insert the same
 * pair first (the unique index drops the duplicate: it wrote the same target).
 */
export async function insertMissing(
  deps: Deps,
  { organizationId, deviceIds, spaces, lane }: MissingGroup,
  { lo, hi }: IdRange,
  now: Date,
): Promise<void> {
  if (deviceIds.length === 0 || spaces.length === 0) return;
  const sequelize = deps.sync.db.sequelize;
  const mysql = sequelize.getDialect() === 'mysql';
  const columns = `id, organization_id, person_id, device_id, action, lane, state, person_version,
    photo_sha256, attempts, next_attempt_at, created_at, updated_at`;
  const values = `:org, pid, dev, 'put', :lane, 'pending', version, photo_sha256, 0, :now, :now, :now`;
  // The same rule as desiredIdsSql, read from the access rows of this range of people, and
  // paired with each device that has no task for the person yet.
  const needed = `SELECT n.*, d.id AS dev FROM (SELECT DISTINCT p.id AS pid, p.version, p.photo_sha256
      FROM person_spaces ps JOIN people p ON p.id = ps.person_id
      WHERE ps.space_id IN (:spaces) AND p.organization_id = :org AND p.enabled = 1
        ${lo === null ? '' : 'AND ps.person_id >= :lo'} ${hi === null ? '' : 'AND ps.person_id < :hi'}
        AND (p.valid_from IS NULL OR p.valid_from <= :now)
        AND (p.valid_until IS NULL OR p.valid_until > :now)) n
    CROSS JOIN devices d
    WHERE d.id IN (:devs)
      AND NOT EXISTS (SELECT 1 FROM sync_tasks t WHERE t.person_id = n.pid AND t.device_id = d.id)`;
  // Time-ordered ids (ordered-ids.ts): this statement's rows go to the end of the id index.
  const dialect = sequelize.getDialect();
  const id = orderedUuidSql(dialect, Date.now());
  const hex = randomHexColumn(dialect);
  const insert = (transaction?: Transaction) =>
    sequelize.query(
      mysql
        ? `INSERT IGNORE INTO sync_tasks (${columns})
        SELECT ${id}, ${values} FROM (SELECT m.*, ${hex} AS h FROM (${needed}) m) n`
        : `INSERT OR IGNORE INTO sync_tasks (${columns})
        SELECT ${id}, ${values} FROM (SELECT *, ${hex} AS h FROM (${needed}) ORDER BY dev)`,
      {
        replacements: {
          spaces,
          org: organizationId,
          devs: deviceIds,
          lane,
          now: sqlDate(sequelize, now),
          lo,
          hi,
        },
        type: QueryTypes.INSERT,
        ...(transaction && { transaction }),
      },
    );
  if (!mysql) {
    await insert();
    return;
  }
  // READ COMMITTED: under InnoDB's default REPEATABLE READ an INSERT … SELECT share-locks every
  // row it reads — the devices, the people, the tasks its NOT EXISTS probes — so device
  // heartbeats, task reads and success writes deadlocked with it (heartbeats answered 500), and a
  // plan that lost four times in a row failed. Read committed, it reads a snapshot instead.
  // Plans of other devices may still run beside this one and lock neighbouring entries; the
  // statement is idempotent, so a deadlock victim is run again (deadlock.ts).
  await readCommittedRetried(sequelize, insert);
}

/**
 * A device's photo limits changed: every person it holds or should hold is pushed again, in
 * the bulk lane, with the photo its new profile gets (photos/variants/); a task failed for a
 * photo that did not fit is tried again. Returns how many tasks were queued.
 */
export async function resendDevicePhotos(
  ctx: Pick<AppContext, 'models'>,
  deviceId: string,
  now: Date,
  transaction: Transaction,
): Promise<number> {
  const [count] = await ctx.models.SyncTask.update(
    { ...retryValues(now), lane: 'bulk' },
    { where: { deviceId, action: 'put' }, transaction },
  );
  return count;
}
