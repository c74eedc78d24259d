import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { AppContext } from '../../context.js';
import type { DeviceRow } from '../../db/business-models.js';
import { readCommittedRetried } from '../../db/deadlock.js';
import { orderedUuid, orderedUuidSql, randomHexColumn } from '../../db/ordered-ids.js';
import { sqlDate } from '../../db/sql-dates.js';
import { freshAttempts } from '../delivery/failures.js';
import { diffSize, type DeviceDiff } from './diff.js';
import { BULK_THRESHOLD, INSERT_CHUNK, UPDATE_CHUNK } from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

export type Lane = 'priority' | 'bulk';

/**
 * Writes several devices' diffs as coalesced tasks (one row per person and device) in as few
 * statements as the targets allow: new tasks of every device in one multi-row INSERT per
 * chunk, existing tasks with the same new target and lane in one UPDATE. Each device's lane
 * is its own (bulk when its diff is large). Resolves with the lanes, in order.
 */
export async function applyDiffs(
  deps: Deps,
  entries: readonly { device: Pick<DeviceRow, 'id' | 'organizationId'>; diff: DeviceDiff }[],
  now: Date,
  /** False: the caller inserts the missing tasks itself (planSync, range by range). */
  withMissing = true,
): Promise<Lane[]> {
  const { SyncTask } = deps.sync.db.models;
  const lanes = entries.map(({ diff }): Lane =>
    diffSize(diff) > BULK_THRESHOLD ? 'bulk' : 'priority',
  );
  const reset = (lane: Lane) => ({ lane, ...freshAttempts(now) });
  const fresh = entries.flatMap(({ device, diff }, i) =>
    diff.puts.filter((p) => p.taskId === null).map((p) => ({ device, lane: lanes[i]!, p })),
  );
  const sequelize = deps.sync.db.sequelize;
  const ignore = sequelize.getDialect() === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  if (withMissing) {
    const missing = entries.flatMap(({ device, diff }, i) =>
      diff.missing && diff.missing.count > 0
        ? [{ device, spaces: diff.missing.spaces, lane: lanes[i]!, count: diff.missing.count }]
        : [],
    );
    await insertMissingTasks(deps, missing, now);
  }
  // With its milliseconds (a bare Date loses them on MySQL).
  const at = sqlDate(sequelize, now);
  for (let i = 0; i < fresh.length; i += INSERT_CHUNK) {
    // A concurrent planner (another process) may insert the same pair first: it wrote the
    // same target, so the duplicate is dropped. One multi-row statement per chunk: a new
    // device of 100,000 people is 100,000 rows.
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
  // Existing tasks with the same new target (and lane) are updated together.
  const targets = new Map<
    string,
    { lane: Lane; version: number; photoSha256: string | null; ids: string[] }
  >();
  const deletes = new Map<string, { lane: Lane; version: number; ids: string[] }>();
  entries.forEach(({ diff }, i) => {
    const lane = lanes[i]!;
    for (const p of diff.puts) {
      if (p.taskId === null) continue;
      const key = `${lane}:${p.version}:${p.photoSha256 ?? ''}`;
      const group = targets.get(key) ?? {
        lane,
        version: p.version,
        photoSha256: p.photoSha256,
        ids: [],
      };
      group.ids.push(p.taskId);
      targets.set(key, group);
    }
    for (const d of diff.deletes) {
      const key = `${lane}:${d.version}`;
      const group = deletes.get(key) ?? { lane, version: d.version, ids: [] };
      group.ids.push(d.taskId);
      deletes.set(key, group);
    }
  });
  for (const { lane, version, photoSha256, ids } of targets.values()) {
    for (let i = 0; i < ids.length; i += UPDATE_CHUNK) {
      await SyncTask.update(
        {
          ...reset(lane),
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
  for (const { lane, version, ids } of deletes.values()) {
    for (let i = 0; i < ids.length; i += UPDATE_CHUNK) {
      await SyncTask.update(
        { ...reset(lane), action: 'delete', photoSha256: null, state: 'pending' as const },
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
  return lanes;
}

/**
 * Splits the id space into ranges of about INSERT_CHUNK people each (by the ids' first hex
 * characters: ids are random UUIDs). The ranges cover every string, whatever an id looks like.
 */
export interface IdRange {
  lo: string | null;
  hi: string | null;
}

export function idRanges(count: number): IdRange[] {
  if (count <= INSERT_CHUNK) return [{ lo: null, hi: null }];
  const hex = '0123456789abcdef';
  const prefixes =
    count <= 16 * INSERT_CHUNK
      ? [...hex]
      : [...hex].flatMap((a) => [...hex].map((b) => `${a}${b}`));
  return prefixes.map((lo, i) => ({
    lo: i === 0 ? null : lo,
    hi: i === prefixes.length - 1 ? null : prefixes[i + 1]!,
  }));
}

/** A device's people of `spaces` without a task there yet: `count` new tasks in `lane`. */
export interface MissingTasks {
  device: Pick<DeviceRow, 'id' | 'organizationId'>;
  spaces: readonly string[];
  lane: Lane;
  count: number;
}

/**
 * Writes the missing tasks of several devices range by range of person ids, the devices of
 * the same spaces together in one statement per range (insertMissing); `afterRange` runs
 * between ranges (the worker serves its devices meanwhile).
 */
export async function insertMissingTasks(
  deps: Deps,
  missing: readonly MissingTasks[],
  now: Date,
  afterRange?: () => Promise<void>,
): Promise<void> {
  if (missing.length === 0) return;
  const groups = missingGroups(missing);
  for (const range of idRanges(Math.max(...missing.map((m) => m.count)))) {
    for (const group of groups) await insertMissing(deps, group, range, now);
    await afterRange?.();
  }
}

/** Devices whose missing tasks one statement can insert: same organization, spaces and lane. */
export interface MissingGroup {
  organizationId: string;
  deviceIds: string[];
  spaces: readonly string[];
  lane: Lane;
}

/**
 * Groups devices that hold the same people (one organization, the same spaces) and get the
 * same lane, so their new tasks are written by one statement per range (insertMissing).
 */
export function missingGroups(
  entries: readonly Pick<MissingTasks, 'device' | 'spaces' | 'lane'>[],
): MissingGroup[] {
  const groups = new Map<string, MissingGroup>();
  for (const { device, spaces, lane } of entries) {
    const key = JSON.stringify([device.organizationId, lane, [...spaces].sort()]);
    const group = groups.get(key) ?? {
      organizationId: device.organizationId,
      deviceIds: [],
      spaces,
      lane,
    };
    group.deviceIds.push(device.id);
    groups.set(key, group);
  }
  return [...groups.values()];
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
