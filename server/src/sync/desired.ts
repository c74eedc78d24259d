import { createHash, randomUUID } from 'node:crypto';
import { Op, QueryTypes, literal, type Sequelize } from 'sequelize';
import type { AppContext } from '../context.js';
import type { DeviceRow } from '../db/business-models.js';
import { loadSpaceTree, type SpaceTree } from '../spaces/tree.js';
import { planPeople } from './delta.js';

type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'logger'>;

/**
 * A device whose plan changes more people than this at once (new, moved or re-enabled device,
 * an import) gets its work in the bulk lane; smaller changes — one person edited — go to the
 * priority lane and are pushed first.
 */
export const BULK_THRESHOLD = 50;
const CHUNK = 1000;
/** Rows per INSERT of new tasks (values are inlined: no bound-parameter limit applies). */
const INSERT_CHUNK = 5000;

/**
 * The spaces whose people belong on a device: its own and every ancestor (access to a space
 * includes the spaces below it). Empty when the device is disabled or has no space: then it
 * should hold nobody.
 */
export function deviceSpaces(
  device: Pick<DeviceRow, 'enabled' | 'spaceId'>,
  tree: SpaceTree,
): string[] {
  if (!device.enabled || !device.spaceId) return [];
  return tree.spaceAndAncestors(device.spaceId);
}

/**
 * SQL selecting the ids of the people who belong on the device: enabled, inside the validity
 * window at :now, of the device's organization, with access to one of :spaces.
 */
function desiredIdsSql(spaces: readonly string[], onlyPeople: boolean): string {
  if (spaces.length === 0) return 'SELECT id FROM people WHERE 1 = 0';
  // A delta plan names its people inside the subquery too: otherwise the database may build
  // the device's whole desired set (100,000 people) to answer for one.
  return `SELECT ps.person_id FROM person_spaces ps
    JOIN people p ON p.id = ps.person_id
    WHERE ps.space_id IN (:spaces) AND p.organization_id = :org AND p.enabled = 1
      ${onlyPeople ? 'AND ps.person_id IN (:personIds)' : ''}
      AND (p.valid_from IS NULL OR p.valid_from <= :now)
      AND (p.valid_until IS NULL OR p.valid_until > :now)`;
}

export interface PutNeed {
  personId: string;
  version: number;
  photoSha256: string | null;
  taskId: string | null;
}

export interface DeleteNeed {
  taskId: string;
  /** The task's person version when the diff read it. */
  version: number;
}

export interface DeviceDiff {
  puts: PutNeed[];
  /** Tasks whose device holds (or is about to hold) a person it should not. */
  deletes: DeleteNeed[];
}

/** What must change on one device for it to hold exactly the people it should. */
export async function diffDevice(
  deps: Deps,
  device: Pick<DeviceRow, 'id' | 'organizationId'>,
  spaces: readonly string[],
  now: Date,
  /** Only these people (a delta plan); all when absent. */
  personIds?: readonly string[],
): Promise<DeviceDiff> {
  const sequelize: Sequelize = deps.db.sequelize;
  if (personIds?.length === 0) return { puts: [], deletes: [] };
  const replacements = { spaces, org: device.organizationId, now, dev: device.id, personIds };
  const desired = desiredIdsSql(spaces, personIds !== undefined);
  const only = (column: string) => (personIds ? `AND ${column} IN (:personIds)` : '');
  // A person changed while a bulk plan ran can sit in that device's bulk backlog: a delta plan
  // moves it to the priority lane.
  const promote = personIds ? `OR (t.state = 'pending' AND t.lane = 'bulk')` : '';
  // A task already aiming at the person's current version and photo is left alone, whatever
  // its state: a failed one waits for the retry API or the next change.
  const puts = await sequelize.query<{
    id: string;
    version: number;
    photo_sha256: string | null;
    task_id: string | null;
  }>(
    `SELECT p.id, p.version, p.photo_sha256, t.id AS task_id FROM people p
      LEFT JOIN sync_tasks t ON t.person_id = p.id AND t.device_id = :dev
      WHERE p.id IN (${desired}) ${only('p.id')}
        AND (t.id IS NULL OR t.action <> 'put' OR t.person_version <> p.version
          OR COALESCE(t.photo_sha256, '') <> COALESCE(p.photo_sha256, '') ${promote})`,
    { replacements, type: QueryTypes.SELECT },
  );
  const deletes = await sequelize.query<{ id: string; person_version: number }>(
    `SELECT t.id, t.person_version FROM sync_tasks t WHERE t.device_id = :dev AND t.action = 'put'
      ${only('t.person_id')} AND t.person_id NOT IN (${desired})`,
    { replacements, type: QueryTypes.SELECT },
  );
  return {
    puts: puts.map((r) => ({
      personId: r.id,
      version: Number(r.version),
      photoSha256: r.photo_sha256,
      taskId: r.task_id,
    })),
    deletes: deletes.map((r) => ({ taskId: r.id, version: Number(r.person_version) })),
  };
}

// A task being pushed keeps its claim: the worker sees the changed target when it finishes
// and puts the task back to pending instead of recording a stale success.
const keepRunning = () => literal(`CASE WHEN state = 'running' THEN 'running' ELSE 'pending' END`);

type Lane = 'priority' | 'bulk';

/** Writes one device's diff as coalesced tasks (one row per person and device). */
export async function applyDiff(
  deps: Deps,
  device: Pick<DeviceRow, 'id' | 'organizationId'>,
  diff: DeviceDiff,
  now: Date,
): Promise<{ queued: number; lane: Lane }> {
  const [lane] = await applyDiffs(deps, [{ device, diff }], now);
  return { queued: diff.puts.length + diff.deletes.length, lane: lane! };
}

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
): Promise<Lane[]> {
  const { SyncTask } = deps.models;
  const lanes = entries.map(({ diff }): Lane =>
    diff.puts.length + diff.deletes.length > BULK_THRESHOLD ? 'bulk' : 'priority',
  );
  const reset = (lane: Lane) =>
    ({
      lane,
      attempts: 0,
      nextAttemptAt: now,
      errorCode: null,
      errorMessage: null,
      finishedAt: null,
      updatedAt: now,
    }) as const;
  const fresh = entries.flatMap(({ device, diff }, i) =>
    diff.puts.filter((p) => p.taskId === null).map((p) => ({ device, lane: lanes[i]!, p })),
  );
  const sequelize = deps.db.sequelize;
  const ignore = sequelize.getDialect() === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
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
          randomUUID(),
          device.organizationId,
          p.personId,
          device.id,
          lane,
          p.version,
          p.photoSha256,
          now,
          now,
          now,
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
    for (let i = 0; i < ids.length; i += CHUNK) {
      await SyncTask.update(
        {
          ...reset(lane),
          action: 'put',
          personVersion: version,
          photoSha256,
          state: keepRunning(),
        },
        {
          where: {
            id: { [Op.in]: ids.slice(i, i + CHUNK) },
            // A plan whose read is older than a concurrent one's write never moves a task back
            // to an older version (versions only grow: every change a device sees raises it).
            [Op.not]: { action: 'put', personVersion: { [Op.gt]: version } },
          },
        },
      );
    }
  }
  for (const { lane, version, ids } of deletes.values()) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      await SyncTask.update(
        { ...reset(lane), action: 'delete', photoSha256: null, state: keepRunning() },
        {
          where: {
            id: { [Op.in]: ids.slice(i, i + CHUNK) },
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
 * Compares the desired state with sync_tasks for every device (of one organization, or all)
 * and queues what differs. Derived rather than signalled, so no other feature has to call in:
 * a person edit, new photo, access change, device move or (re)enable, disable, deletion, or a
 * validity boundary passing all show up as a difference on the next run.
 */
export async function planSync(
  deps: Deps,
  opts: {
    organizationId?: string;
    deviceId?: string;
    personIds?: readonly string[];
    /** Runs after each device's diff is written (the worker serves it, plans urgent work). */
    afterDevice?: () => Promise<void>;
  } = {},
): Promise<{ devices: number; queued: number }> {
  // A few people on every device: a handful of statements instead of a few per device.
  if (opts.personIds && !opts.organizationId && !opts.deviceId) {
    return planPeople(deps, opts.personIds);
  }
  const now = deps.clock.now();
  const devices = await deps.models.Device.findAll({
    attributes: ['id', 'organizationId', 'enabled', 'spaceId'],
    where: {
      ...(opts.organizationId && { organizationId: opts.organizationId }),
      ...(opts.deviceId && { id: opts.deviceId }),
    },
  });
  const trees = new Map<string, SpaceTree>();
  let queued = 0;
  for (const device of devices) {
    let tree = trees.get(device.organizationId);
    if (!tree) {
      tree = await loadSpaceTree(deps, device.organizationId);
      trees.set(device.organizationId, tree);
    }
    const diff = await diffDevice(deps, device, deviceSpaces(device, tree), now, opts.personIds);
    if (diff.puts.length + diff.deletes.length > 0) {
      const result = await applyDiff(deps, device, diff, now);
      queued += result.queued;
      deps.logger.debug({ device: device.id, ...result }, 'sync planned');
    }
    await opts.afterDevice?.();
  }
  return { devices: devices.length, queued };
}

/**
 * A cheap summary of everything the desired state depends on; the planner skips its full
 * comparison while this is unchanged. For people, counts and sums catch deletions, `version`
 * (raised by every change a device or its access depends on) and the newest update time catch
 * edits, and the number of people inside their window at `now` catches a validity boundary
 * passing. Devices and spaces are few, so what placement depends on (a device's space and
 * enabled flag, a space's parent) is digested row by row: a move is seen even within the same
 * millisecond as the previous change or after the clock stepped back, which an `updated_at`
 * maximum misses. (A periodic full plan is the backstop for a change this could miss.)
 */
export async function desiredFingerprint(deps: Deps, now: Date): Promise<string> {
  const sequelize = deps.db.sequelize;
  const rows = await sequelize.query(
    `SELECT
      (SELECT COUNT(*) FROM people) AS people,
      (SELECT SUM(version) FROM people) AS versions,
      (SELECT MAX(updated_at) FROM people) AS people_at,
      (SELECT COUNT(*) FROM people WHERE enabled = 1
        AND (valid_from IS NULL OR valid_from <= :now)
        AND (valid_until IS NULL OR valid_until > :now)) AS valid,
      (SELECT COUNT(*) FROM person_spaces) AS access`,
    { replacements: { now }, type: QueryTypes.SELECT },
  );
  const placement = createHash('sha256');
  const devices = await sequelize.query<{ id: string; space_id: string | null; enabled: unknown }>(
    'SELECT id, space_id, enabled FROM devices ORDER BY id',
    { type: QueryTypes.SELECT },
  );
  for (const d of devices) placement.update(`d ${d.id} ${d.space_id} ${Number(d.enabled)}\n`);
  const spaces = await sequelize.query<{ id: string; parent_id: string | null }>(
    'SELECT id, parent_id FROM spaces ORDER BY id',
    { type: QueryTypes.SELECT },
  );
  for (const s of spaces) placement.update(`s ${s.id} ${s.parent_id}\n`);
  return JSON.stringify({ ...rows[0], placement: placement.digest('base64') });
}

/** Most people a delta plan takes; beyond this (an import) the full plan is cheaper. */
const DELTA_MAX = 1000;

/**
 * The people to plan when only people changed since the plan that read `before` (started at
 * `since`): those updated since then. Undefined when a delta cannot be trusted — devices or
 * spaces changed, someone was deleted (the count rose by less than the people created), or
 * the number inside their validity window moved otherwise than by the people added (a
 * boundary passed for someone not edited) — and then the caller plans everything.
 */
export async function changedPeople(
  deps: Deps,
  before: string,
  after: string,
  since: Date,
): Promise<string[] | undefined> {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  if (a.placement !== b.placement) return undefined;
  const added = Number(b.people) - Number(a.people);
  if (added < 0 || Number(b.valid) - Number(a.valid) !== added) return undefined;
  // Updated a little before the last plan too: a transaction that stamped its rows just
  // before that plan's clock reading may have committed after its read.
  const rows = await deps.db.sequelize.query<{ id: string; fresh: unknown }>(
    `SELECT id, CASE WHEN created_at >= :since THEN 1 ELSE 0 END AS fresh FROM people
      WHERE updated_at >= :margin LIMIT ${DELTA_MAX + 1}`,
    {
      replacements: { since, margin: new Date(since.getTime() - 5_000) },
      type: QueryTypes.SELECT,
    },
  );
  if (rows.length > DELTA_MAX) return undefined;
  const created = rows.filter((r) => Number(r.fresh) === 1).length;
  return created === added ? rows.map((r) => r.id) : undefined;
}
