import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Op, QueryTypes, type InferAttributes } from 'sequelize';
import type { AppContext } from '../context.js';
import type { SyncTaskRow } from '../db/business-models.js';
import { onlineWhere } from '../devices/service.js';
import { fromSqlDate, sqlDate } from '../db/sql-dates.js';
import { readCommittedRetried, retryOnDeadlock } from '../db/deadlock.js';

type Deps = Pick<AppContext, 'models' | 'db' | 'clock'>;

/**
 * How long a claim holds a task unless renewed (lease.ts renews it while pushes are in flight);
 * a process killed mid-push, or one that could not record, frees its tasks after this.
 */
export const LEASE_MS = 20_000;

const PROCESS_TAG = `${hostname().slice(0, 32)}:${process.pid}`;

/** A fresh claimant id: this process plus randomness, so one claim's rows can be read back. */
export function newClaimant(): string {
  return `${PROCESS_TAG}:${randomBytes(8).toString('hex')}`;
}

/**
 * Tasks whose lease ran out (their process died or hung) go back to pending, attempts
 * unchanged: nothing stays `running` after a crash.
 */
export async function recoverExpiredLeases(deps: Deps, now: Date): Promise<number> {
  const devices = await deps.models.Device.findAll({ attributes: ['id'], raw: true });
  if (devices.length === 0) return 0;
  // Idempotent: run again when it loses a deadlock to a claim or a plan (MySQL).
  const [count] = await retryOnDeadlock(() =>
    deps.models.SyncTask.update(
      { state: 'pending', claimedBy: null, claimedUntil: null, nextAttemptAt: now, updatedAt: now },
      {
        where: {
          // Device by device: (device_id, state) leads sync_tasks_device_due, the one index on
          // state (every task is in it; a scan of the table would read them all).
          deviceId: devices.map((d) => d.id),
          state: 'running',
          [Op.or]: [{ claimedUntil: null }, { claimedUntil: { [Op.lt]: now } }],
        },
      },
    ),
  );
  return count;
}

/** Online devices (heartbeat rule) with at least one due pending task. */
export async function devicesWithDueWork(
  deps: Deps,
  now: Date,
  heartbeatTimeoutS: number,
): Promise<string[]> {
  const online = await deps.models.Device.findAll({
    attributes: ['id'],
    where: onlineWhere(now, heartbeatTimeoutS),
    raw: true,
  });
  if (online.length === 0) return [];
  // One index probe per device and lane (sync_tasks_device_due), not a scan of all due rows.
  // A scalar subquery with LIMIT 1, not EXISTS: MariaDB turns EXISTS into a semi-join that
  // read every due row of a backfill (0.3–1 s a call at 400,000 tasks).
  const due = (lane: string) => `(SELECT 1 FROM sync_tasks t WHERE t.device_id = d.id
    AND t.state = 'pending' AND t.lane = '${lane}' AND t.next_attempt_at <= :now LIMIT 1) = 1`;
  const rows = await deps.db.sequelize.query<{ id: string }>(
    `SELECT d.id FROM devices d WHERE d.id IN (:online)
      AND (${due('priority')} OR ${due('bulk')}) ORDER BY d.id`,
    {
      // With its milliseconds: a bare Date loses them on MySQL, and work planned within the
      // current second would not be due until the next one.
      replacements: { online: online.map((d) => d.id), now: sqlDate(deps.db.sequelize, now) },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((r) => r.id);
}

/**
 * Whether a periodic safety net (the full plan, the reconciliation) runs now: its period has
 * passed and no online device has due work. During a backfill it waits — the work was just
 * planned and is being pushed; at 100,000 × 20 on MariaDB a full plan beside the pushes cut
 * them from ~3,500 to ~2,200 a second — but one period more at most, so a site that always
 * has work is not left without it.
 */
export async function periodicDue(
  deps: Deps & Pick<AppContext, 'config'>,
  { sinceLastMs, everyMs }: { sinceLastMs: number; everyMs: number },
): Promise<boolean> {
  if (everyMs <= 0 || sinceLastMs <= everyMs) return false;
  if (sinceLastMs > 2 * everyMs) return true;
  const busy = await devicesWithDueWork(deps, deps.clock.now(), deps.config.heartbeatTimeoutS);
  return busy.length === 0;
}

/**
 * A claimed task as plain data: what pushing and recording it read (no model instance per
 * task, and none of the result or timestamp columns: reading and converting them cost a
 * backfill's claims a third of their time).
 */
export type TaskRow = Pick<
  InferAttributes<SyncTaskRow>,
  | 'id'
  | 'organizationId'
  | 'personId'
  | 'deviceId'
  | 'action'
  | 'lane'
  | 'personVersion'
  | 'photoSha256'
  | 'attempts'
  | 'nextAttemptAt'
  | 'claimedBy'
  | 'resultVersion'
>;

type Claimed = Exclude<keyof TaskRow, 'claimedBy'>;
const COLUMNS = {
  id: 'id',
  organizationId: 'organization_id',
  personId: 'person_id',
  deviceId: 'device_id',
  action: 'action',
  lane: 'lane',
  personVersion: 'person_version',
  photoSha256: 'photo_sha256',
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  resultVersion: 'result_version',
} as const satisfies Record<Claimed, string>;

// Unquoted: Sequelize's SQLite driver reads the column types of a backquoted FROM table with
// an extra statement per query.
const SELECT_COLUMNS = Object.entries(COLUMNS)
  .map(([attr, col]) => `${col} AS ${attr}`)
  .join(', ');

/** A claimed row as the driver gives it: numbers may come as text, dates as text on SQLite. */
type RawTask = Pick<
  TaskRow,
  'id' | 'organizationId' | 'personId' | 'deviceId' | 'action' | 'lane' | 'photoSha256'
> & {
  personVersion: number | string;
  attempts: number | string;
  nextAttemptAt: unknown;
  resultVersion: number | string | null;
};

/** A raw row (dates as Date on MySQL, text on SQLite) of a claim → TaskRow. */
const toTask = (raw: RawTask, claimedBy: string): TaskRow => ({
  id: raw.id,
  organizationId: raw.organizationId,
  personId: raw.personId,
  deviceId: raw.deviceId,
  action: raw.action,
  lane: raw.lane,
  personVersion: Number(raw.personVersion),
  photoSha256: raw.photoSha256,
  attempts: Number(raw.attempts),
  nextAttemptAt: fromSqlDate(raw.nextAttemptAt)!,
  resultVersion: raw.resultVersion === null ? null : Number(raw.resultVersion),
  claimedBy,
});

// One lane's due tasks of one device, oldest first: a range of sync_tasks_device_due.
const dueIn = (lane: 'priority' | 'bulk', columns: string) =>
  `SELECT ${columns} FROM sync_tasks WHERE device_id = :dev AND state = 'pending'
    AND lane = '${lane}' AND next_attempt_at <= :now ORDER BY next_attempt_at LIMIT :limit`;

/**
 * Claims up to `limit` due tasks of one device, priority lane first, and returns them as
 * claimed. Two processes never get the same task: on MySQL the candidate rows are locked with
 * SKIP LOCKED (a concurrent claimer takes other rows) before they are marked; on SQLite one
 * UPDATE … WHERE id IN (SELECT …) RETURNING is atomic under the database's one writer, and is
 * the only statement of a claim (each statement costs a turn of the event loop there).
 */
export async function claimTasks(
  deps: Deps,
  deviceId: string,
  limit: number,
  now: Date,
): Promise<TaskRow[]> {
  const claimant = newClaimant();
  const until = new Date(now.getTime() + LEASE_MS);
  const sequelize = deps.db.sequelize;
  // Dates as text with their milliseconds (sqlDate): see devicesWithDueWork.
  const replacements = {
    dev: deviceId,
    now: sqlDate(sequelize, now),
    limit,
    claimant,
    until: sqlDate(sequelize, until),
  };
  const mark = `UPDATE sync_tasks SET state = 'running', claimed_by = :claimant,
    claimed_until = :until, updated_at = :now`;
  let raws: RawTask[] = [];
  if (sequelize.getDialect() === 'mysql') {
    // READ COMMITTED: the locking reads take no gap locks, so two devices' claims (whose rows
    // move within the same due index when marked) cannot deadlock on each other's gaps.
    // A deadlock with another device's claim or a success write is tried again (deadlock.ts).
    await readCommittedRetried(sequelize, async (transaction) => {
      raws = [];
      for (const lane of ['priority', 'bulk'] as const) {
        if (raws.length >= limit) break;
        raws.push(
          ...(await sequelize.query<RawTask>(
            `${dueIn(lane, SELECT_COLUMNS)} FOR UPDATE SKIP LOCKED`,
            {
              replacements: { ...replacements, limit: limit - raws.length },
              type: QueryTypes.SELECT,
              transaction,
            },
          )),
        );
      }
      if (raws.length === 0) return;
      await sequelize.query(`${mark} WHERE id IN (:ids)`, {
        replacements: { ...replacements, ids: raws.map((r) => r.id) },
        transaction,
      });
    });
  } else {
    // Priority lane first, then bulk, in one statement. The rows are found by rowid (what
    // sync_tasks_device_due holds), not by id through the primary key's own index.
    raws = await sequelize.query<RawTask>(
      `${mark} WHERE rowid IN (SELECT r FROM (
        SELECT r, 0 AS rank, next_attempt_at FROM (${dueIn('priority', 'rowid AS r, next_attempt_at')})
        UNION ALL SELECT r, 1 AS rank, next_attempt_at FROM (${dueIn('bulk', 'rowid AS r, next_attempt_at')})
      ) ORDER BY rank, next_attempt_at LIMIT :limit) RETURNING ${SELECT_COLUMNS}`,
      { replacements, type: QueryTypes.SELECT },
    );
  }
  const tasks = raws.map((raw) => toTask(raw, claimant));
  // RETURNING gives no order: priority lane first, then the oldest due.
  return tasks.sort(
    (a, b) =>
      Number(a.lane !== 'priority') - Number(b.lane !== 'priority') ||
      a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime(),
  );
}
