import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../../context.js';
import type { DeviceRow } from '../../db/business-models.js';
import { loadSpaceTree, type SpaceTree } from '../../spaces/tree.js';
import { applyDiffs, insertMissingTasks, type Lane, type MissingTasks } from './write-tasks.js';
import { planPeople } from './people-plan.js';
import { deviceSpaces, diffSize, type DeviceDiff } from './diff.js';
import { peoplePart, type Fingerprint } from './fingerprint.js';
import { COMMIT_MARGIN_MS, FEW_TASKS, PEOPLE_PLAN_MAX } from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

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

/** What must change on one device for it to hold exactly the people it should. */
export async function diffDevice(
  deps: Deps,
  device: Pick<DeviceRow, 'id' | 'organizationId'>,
  spaces: readonly string[],
  now: Date,
  /** Only these people (a delta plan); all when absent. */
  personIds?: readonly string[],
  /** Whether a pending bulk task of these people moves to the priority lane. */
  promoteBulk = personIds !== undefined,
): Promise<DeviceDiff> {
  const sequelize: Sequelize = deps.sync.db.sequelize;
  if (personIds?.length === 0) return { puts: [], deletes: [] };
  const replacements = { spaces, org: device.organizationId, now, dev: device.id, personIds };
  const desired = desiredIdsSql(spaces, personIds !== undefined);
  const only = (column: string) => (personIds ? `AND ${column} IN (:personIds)` : '');
  // A person changed while a bulk plan ran can sit in that device's bulk backlog: a delta plan
  // moves it to the priority lane.
  const promote = personIds && promoteBulk ? `OR (t.state = 'pending' AND t.lane = 'bulk')` : '';
  // A task already aiming at the person's current version and photo is left alone, whatever
  // its state: a failed one waits for the retry API or the next change.
  // A full plan counts the people without a task here; applyDiffs inserts them in SQL.
  const full = personIds === undefined;
  const puts = await sequelize.query<{
    id: string;
    version: number;
    photo_sha256: string | null;
    task_id: string | null;
  }>(
    `SELECT p.id, p.version, p.photo_sha256, t.id AS task_id FROM people p
      ${full ? 'JOIN' : 'LEFT JOIN'} sync_tasks t ON t.person_id = p.id AND t.device_id = :dev
      WHERE p.id IN (${desired}) ${only('p.id')}
        AND (t.id IS NULL OR t.action <> 'put' OR t.person_version <> p.version
          OR COALESCE(t.photo_sha256, '') <> COALESCE(p.photo_sha256, '') ${promote})`,
    { replacements, type: QueryTypes.SELECT },
  );
  const missing = full
    ? await sequelize.query<{ n: number }>(
        `SELECT COUNT(*) AS n FROM people p WHERE p.id IN (${desired})
          AND NOT EXISTS (SELECT 1 FROM sync_tasks t WHERE t.person_id = p.id AND t.device_id = :dev)`,
        { replacements, type: QueryTypes.SELECT },
      )
    : [];
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
    ...(full && { missing: { count: Number(missing[0]?.n ?? 0), spaces } }),
  };
}

/** The people of the device's tasks, when it has at most FEW_TASKS (sync_tasks_device_due). */
async function fewTaskPeople(deps: Deps, deviceId: string): Promise<string[] | undefined> {
  const rows = await deps.sync.db.sequelize.query<{ person_id: string }>(
    `SELECT person_id FROM sync_tasks WHERE device_id = :dev LIMIT ${FEW_TASKS + 1}`,
    { replacements: { dev: deviceId }, type: QueryTypes.SELECT },
  );
  return rows.length > FEW_TASKS ? undefined : rows.map((r) => r.person_id);
}

/**
 * diffDevice's full answer for a device with few tasks (registered, perhaps already given a
 * person created since): its tasks compared person by person, and everyone else it should
 * hold missing — the desired people counted once per organization and spaces for all such
 * devices of a plan, less those among its tasks' people. Each of diffDevice's three full
 * queries reads the device's whole desired set (0.3–0.4 s at 100,000 people on SQLite): a
 * site's twenty new devices cost fifteen seconds of the worker's connection before the first
 * of them had work.
 */
async function fewTasksDiff(
  deps: Deps,
  device: Pick<DeviceRow, 'id' | 'organizationId'>,
  spaces: readonly string[],
  now: Date,
  people: readonly string[],
  counts: Map<string, Promise<number>>,
): Promise<DeviceDiff> {
  const count = async (personIds?: readonly string[]) => {
    const rows = await deps.sync.db.sequelize.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM people p WHERE p.id IN (${desiredIdsSql(spaces, personIds !== undefined)})`,
      {
        replacements: { spaces, org: device.organizationId, now, personIds },
        type: QueryTypes.SELECT,
      },
    );
    return Number(rows[0]?.n ?? 0);
  };
  const key = JSON.stringify([device.organizationId, [...spaces].sort()]);
  let desired = counts.get(key);
  if (!desired) {
    desired = count();
    counts.set(key, desired);
  }
  if (people.length === 0)
    return { puts: [], deletes: [], missing: { count: await desired, spaces } };
  // A full plan moves no task between lanes.
  const known = await diffDevice(deps, device, spaces, now, people, false);
  const held = await count(people);
  return { ...known, missing: { count: Math.max(0, (await desired) - held), spaces } };
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
    /** Only these devices (registered, moved or re-enabled: their new tasks go together). */
    deviceIds?: readonly string[];
    personIds?: readonly string[];
    /** Runs after each device's diff is written (the worker serves it, plans urgent work). */
    afterDevice?: () => Promise<void>;
    /** Tasks were written in this lane (the worker's devices read priority work at once). */
    onQueued?: (lane: Lane) => void;
  } = {},
): Promise<{ devices: number; queued: number }> {
  // A few people on every device: a handful of statements instead of a few per device.
  if (opts.personIds && !opts.organizationId && !opts.deviceIds) {
    return planPeople(deps, opts.personIds);
  }
  const now = deps.clock.now();
  const devices = await deps.sync.db.models.Device.findAll({
    attributes: ['id', 'organizationId', 'enabled', 'spaceId'],
    where: {
      ...(opts.organizationId && { organizationId: opts.organizationId }),
      ...(opts.deviceIds && { id: [...opts.deviceIds] }),
    },
  });
  const trees = new Map<string, SpaceTree>();
  const counts = new Map<string, Promise<number>>();
  let queued = 0;
  const missing: MissingTasks[] = [];
  for (const device of devices) {
    let tree = trees.get(device.organizationId);
    if (!tree) {
      tree = await loadSpaceTree(deps.sync.db, device.organizationId);
      trees.set(device.organizationId, tree);
    }
    const spaces = deviceSpaces(device, tree);
    const few = opts.personIds === undefined ? await fewTaskPeople(deps, device.id) : undefined;
    const diff = few
      ? await fewTasksDiff(deps, device, spaces, now, few, counts)
      : await diffDevice(deps, device, spaces, now, opts.personIds);
    if (diffSize(diff) > 0) {
      const [lane] = await applyDiffs(deps, [{ device, diff }], now, false);
      queued += diffSize(diff);
      if (diff.puts.length + diff.deletes.length > 0) opts.onQueued?.(lane!);
      deps.logger.debug({ device: device.id, queued: diffSize(diff), lane }, 'sync planned');
      if (diff.missing && diff.missing.count > 0) {
        missing.push({
          device,
          spaces: diff.missing.spaces,
          lane: lane!,
          count: diff.missing.count,
        });
      }
    }
    await opts.afterDevice?.();
  }
  // New tasks range by range across all devices, not device after device: every device gets
  // work at once and they finish together (a device's pushes are limited per device, so the
  // last device planned would otherwise push alone at the end).
  await insertMissingTasks(deps, missing, now, opts.afterDevice);
  for (const lane of new Set(missing.map((m) => m.lane))) opts.onQueued?.(lane);
  return { devices: devices.length, queued };
}

/** What changed between two fingerprints, to be planned on its own instead of everything. */
export interface Changes {
  /** People created or edited (planned on every device). */
  people: string[];
  /** Devices registered, moved, enabled or disabled (planned for everyone). */
  devices: string[];
}

/**
 * What to plan when the fingerprint went from `before` (read by the plan that started at
 * `since`) to `after`: the people updated since then and the devices whose placement
 * changed. Undefined when a delta cannot be trusted — the spaces changed, someone was deleted
 * (the deletion mark in runtime settings changed), or the number inside their validity window
 * moved otherwise than by the people added (a boundary passed for someone not edited) — and
 * then the caller plans everything. A device removed needs nothing: its tasks went with it.
 */
export async function changesSince(
  deps: Deps,
  before: string,
  after: string,
  since: Date,
): Promise<Changes | undefined> {
  const a = JSON.parse(before) as Fingerprint;
  const b = JSON.parse(after) as Fingerprint;
  if (a.spaces !== b.spaces || a.deleted !== b.deleted) return undefined;
  const devices = Object.keys(b.devices).filter((id) => a.devices[id] !== b.devices[id]);
  if (peoplePart(a) === peoplePart(b)) return { people: [], devices };
  const added = Number(b.people) - Number(a.people);
  if (added < 0 || Number(b.valid) - Number(a.valid) !== added) return undefined;
  // No one was deleted (deletePerson changes `deleted`), so everyone added or edited since is
  // among the people updated since. Counting the ones created since against `added` instead
  // mistook a person created just before the last plan, and committed just after its read,
  // for a deletion: with the worker planning at each change, a full plan every few seconds.
  const people = await peopleUpdatedSince(deps, since);
  return people && { people, devices };
}

/**
 * The people edited or created since `since` (at most PEOPLE_PLAN_MAX, else undefined). Planning
 * them on their own is always right, though it may not be all that changed (a device moved,
 * someone deleted): what a long full plan does for them meanwhile, without waiting for its end.
 */
export async function peopleUpdatedSince(deps: Deps, since: Date): Promise<string[] | undefined> {
  // Updated a little before the last plan too: a transaction that stamped its rows just
  // before that plan's clock reading may have committed after its read.
  const rows = await deps.sync.db.sequelize.query<{ id: string }>(
    `SELECT id FROM people WHERE updated_at >= :margin LIMIT ${PEOPLE_PLAN_MAX + 1}`,
    {
      replacements: { margin: new Date(since.getTime() - COMMIT_MARGIN_MS) },
      type: QueryTypes.SELECT,
    },
  );
  return rows.length > PEOPLE_PLAN_MAX ? undefined : rows.map((r) => r.id);
}
