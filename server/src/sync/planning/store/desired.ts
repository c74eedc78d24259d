import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import type { DeviceRow } from '../../../platform/db/business-models.js';
import { sqlDate } from '../../../platform/db/sql-dates.js';
import { SettingKey } from '../../../settings/runtime-settings.js';
import type { DeviceDiff } from '../diff.js';
import { COMMIT_MARGIN_MS, FEW_TASKS, PEOPLE_PLAN_MAX } from '../../knobs.js';

/**
 * The planning wing's reads: the desired state (who belongs on which device) against the
 * tasks, and what the fingerprint summarises. What to plan and when is decided beside the
 * store (planner.ts, full-plan.ts, people-plan.ts); its writes are in tasks.ts.
 */
type Deps = Pick<AppContext, 'sync'>;

export type PlanDevice = Pick<DeviceRow, 'id' | 'organizationId' | 'enabled' | 'spaceId'>;

/** The devices a plan covers (of one organization, or these ids; all when neither). */
export async function planDevices(
  deps: Deps,
  where: { organizationId?: string; deviceIds?: readonly string[] } = {},
): Promise<PlanDevice[]> {
  return deps.sync.db.models.Device.findAll({
    attributes: ['id', 'organizationId', 'enabled', 'spaceId'],
    where: {
      ...(where.organizationId && { organizationId: where.organizationId }),
      ...(where.deviceIds && { id: [...where.deviceIds] }),
    },
  });
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
  const sequelize = deps.sync.db.sequelize;
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

/** How many people belong on a device of `org` placed under `spaces` (of `personIds`: of them). */
export async function countDesired(
  deps: Deps,
  org: string,
  spaces: readonly string[],
  now: Date,
  personIds?: readonly string[],
): Promise<number> {
  const rows = await deps.sync.db.sequelize.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM people p WHERE p.id IN (${desiredIdsSql(spaces, personIds !== undefined)})`,
    { replacements: { spaces, org, now, personIds }, type: QueryTypes.SELECT },
  );
  return Number(rows[0]?.n ?? 0);
}

/** The people of the device's tasks, when it has at most FEW_TASKS (sync_tasks_device_due). */
export async function fewTaskPeople(deps: Deps, deviceId: string): Promise<string[] | undefined> {
  const rows = await deps.sync.db.sequelize.query<{ person_id: string }>(
    `SELECT person_id FROM sync_tasks WHERE device_id = :dev LIMIT ${FEW_TASKS + 1}`,
    { replacements: { dev: deviceId }, type: QueryTypes.SELECT },
  );
  return rows.length > FEW_TASKS ? undefined : rows.map((r) => r.person_id);
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

/** What a plan of a few named people reads: their rows, their access rows, their tasks. */
export async function readPeopleFacts(deps: Deps, personIds: readonly string[]) {
  const select = <T extends object>(sql: string) =>
    deps.sync.db.sequelize.query<T>(sql, {
      replacements: { ids: personIds },
      type: QueryTypes.SELECT,
    });
  const [people, access, tasks] = await Promise.all([
    select<Record<string, unknown>>(
      `SELECT id, organization_id, version, photo_sha256, enabled, valid_from, valid_until
        FROM people WHERE id IN (:ids)`,
    ),
    select<{ person_id: string; space_id: string }>(
      'SELECT person_id, space_id FROM person_spaces WHERE person_id IN (:ids)',
    ),
    select<Record<string, unknown>>(
      `SELECT id, person_id, device_id, action, person_version, photo_sha256, state, lane
        FROM sync_tasks WHERE person_id IN (:ids)`,
    ),
  ]);
  return { people, access, tasks };
}

// --- what the fingerprint summarises ----------------------------------------------------------

/** Every person's row summarised: counts, sums, the next validity boundaries, the deletion mark. */
export async function peopleSummary(deps: Deps, now: Date): Promise<Record<string, unknown>> {
  const sequelize = deps.sync.db.sequelize;
  const [row] = await sequelize.query<Record<string, unknown>>(
    `SELECT COUNT(*) AS people, SUM(version) AS versions,
      COALESCE(SUM(CASE WHEN enabled = 1 AND (valid_from IS NULL OR valid_from <= :now)
        AND (valid_until IS NULL OR valid_until > :now) THEN 1 ELSE 0 END), 0) AS valid,
      MIN(CASE WHEN valid_from > :now THEN valid_from END) AS next_from,
      MIN(CASE WHEN valid_until > :now THEN valid_until END) AS next_until,
      (SELECT MAX(updated_at) FROM people) AS people_at,
      (SELECT COUNT(*) FROM person_spaces) AS access,
      (SELECT value FROM runtime_settings WHERE \`key\` = :deleted) AS deleted
      FROM people`,
    {
      replacements: { now: sqlDate(sequelize, now), deleted: SettingKey.peopleDeleted },
      type: QueryTypes.SELECT,
    },
  );
  return row!;
}

/** The people stamped since `anchor` and the deletion mark: a range of people_updated_at. */
export async function recentPeopleSummary(deps: Deps, anchor: Date): Promise<string> {
  const sequelize = deps.sync.db.sequelize;
  const [row] = await sequelize.query(
    `SELECT COUNT(*) AS n, SUM(version) AS versions, MAX(updated_at) AS newest,
      (SELECT value FROM runtime_settings WHERE \`key\` = :deleted) AS deleted
      FROM people WHERE updated_at >= :anchor`,
    {
      replacements: { anchor: sqlDate(sequelize, anchor), deleted: SettingKey.peopleDeleted },
      type: QueryTypes.SELECT,
    },
  );
  return JSON.stringify(row);
}

/** Every device's space and flag, every space's parent: few rows, in id order. */
export async function placementRows(deps: Deps) {
  const sequelize = deps.sync.db.sequelize;
  const devices = await sequelize.query<{ id: string; space_id: string | null; enabled: unknown }>(
    'SELECT id, space_id, enabled FROM devices ORDER BY id',
    { type: QueryTypes.SELECT },
  );
  const spaces = await sequelize.query<{ id: string; parent_id: string | null }>(
    'SELECT id, parent_id FROM spaces ORDER BY id',
    { type: QueryTypes.SELECT },
  );
  return { devices, spaces };
}
