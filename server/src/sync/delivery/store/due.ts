import { Op, QueryTypes, type InferAttributes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { SyncTaskRow } from '../../../db/business-models.js';
import { onlineWhere } from '../../../devices/service.js';
import { fromSqlDate, sqlDate } from '../../../db/sql-dates.js';
import { retryOnDeadlock } from '../../../db/deadlock.js';

type Deps = Pick<AppContext, 'sync' | 'clock'>;

/**
 * Tasks left `running` by a version of svc that claimed each task (before migration 0051),
 * whose lease ran out, go back to pending, attempts unchanged. Tasks are no longer marked:
 * after an upgrade this finds them once, then nothing. Needed only by a database last run by a
 * build before 0051 (sites upgraded from it); it and the `claimed_by`/`claimed_until` columns
 * can go with a migration once no such site remains.
 */
export async function recoverExpiredLeases(deps: Deps, now: Date): Promise<number> {
  const devices = await deps.sync.db.models.Device.findAll({ attributes: ['id'], raw: true });
  if (devices.length === 0) return 0;
  // Idempotent: run again when it loses a deadlock to a read or a plan (MySQL).
  const [count] = await retryOnDeadlock(() =>
    deps.sync.db.models.SyncTask.update(
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
  const online = await deps.sync.db.models.Device.findAll({
    attributes: ['id'],
    where: onlineWhere(now, heartbeatTimeoutS),
    raw: true,
  });
  if (online.length === 0) return [];
  // One index probe per device and lane (sync_tasks_device_due), not a scan of all due rows.
  // A scalar subquery with LIMIT 1, not EXISTS: MariaDB turns EXISTS into a semi-join that
  // reads every due row of a backfill on each call.
  const due = (lane: string) => `(SELECT 1 FROM sync_tasks t WHERE t.device_id = d.id
    AND t.state = 'pending' AND t.lane = '${lane}' AND t.next_attempt_at <= :now LIMIT 1) = 1`;
  const rows = await deps.sync.db.sequelize.query<{ id: string }>(
    `SELECT d.id FROM devices d WHERE d.id IN (:online)
      AND (${due('priority')} OR ${due('bulk')}) ORDER BY d.id`,
    {
      // With its milliseconds: a bare Date loses them on MySQL, and work planned within the
      // current second would not be due until the next one.
      replacements: { online: online.map((d) => d.id), now: sqlDate(deps.sync.db.sequelize, now) },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((r) => r.id);
}

/**
 * A task read to push, as plain data: what pushing and recording it read (no model instance per
 * task, and none of the result or timestamp columns: reading and converting them cost a
 * backfill's reads a third of their time).
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
  | 'resultVersion'
>;

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
} as const satisfies Record<keyof TaskRow, string>;

// Unquoted: Sequelize's SQLite driver reads the column types of a backquoted FROM table with
// an extra statement per query.
const SELECT_COLUMNS = Object.entries(COLUMNS)
  .map(([attr, col]) => `${col} AS ${attr}`)
  .join(', ');

/** A row read to push as the driver gives it: numbers may come as text, dates as text on SQLite. */
type RawTask = Pick<
  TaskRow,
  'id' | 'organizationId' | 'personId' | 'deviceId' | 'action' | 'lane' | 'photoSha256'
> & {
  personVersion: number | string;
  attempts: number | string;
  nextAttemptAt: unknown;
  resultVersion: number | string | null;
};

/** A raw row (dates as Date on MySQL, text on SQLite) of a due-task read → TaskRow. */
const toTask = (raw: RawTask): TaskRow => ({
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
});

interface ReadPosition {
  /** `next_attempt_at` as the column's text. */
  at: string;
  /** The row's key: its id on MySQL (text), its rowid on SQLite (a number). */
  key: string | number;
}

/** Where a device's reading got to, per lane (the next read starts after it). */
export type ReadCursor = Partial<Record<'priority' | 'bulk', ReadPosition>>;

const isAfter = (a: ReadPosition, b: ReadPosition) =>
  a.at !== b.at ? a.at > b.at : typeof a.key === 'number' ? a.key > Number(b.key) : a.key > b.key;

/**
 * Reads up to `limit` due tasks of one device to push, priority lane first, oldest due first.
 * The caller holds the device (device-leases.ts), so this is a plain read: no lock, no mark; the tasks
 * stay `pending` until their outcome is written. `cursor` (kept by the device's stream) makes
 * each read start where the last one ended — the tasks read before are still pending and due —
 * and `skip` leaves out tasks in flight that came round again (changed by the planner meanwhile).
 */
export async function readDueTasks(
  deps: Deps,
  deviceId: string,
  limit: number,
  now: Date,
  { cursor = {}, skip }: { cursor?: ReadCursor; skip?: (id: string) => boolean } = {},
): Promise<TaskRow[]> {
  const sequelize = deps.sync.db.sequelize;
  const mysql = sequelize.getDialect() === 'mysql';
  // The due index ends with the row's key: the primary key on MySQL, the rowid on SQLite.
  const key = mysql ? 'id' : 'rowid';
  const raws: (RawTask & { rowKey: string | number })[] = [];
  for (const lane of ['priority', 'bulk'] as const) {
    for (;;) {
      const want = limit - raws.length;
      if (want <= 0) break;
      const from = cursor[lane];
      // After the cursor: two ranges of sync_tasks_device_due (MariaDB makes an index range of
      // each; SQLite takes the row value).
      const after = !from
        ? ''
        : mysql
          ? 'AND (next_attempt_at > :at OR (next_attempt_at = :at AND id > :key))'
          : 'AND (next_attempt_at, rowid) > (:at, :key)';
      const rows = await sequelize.query<RawTask & { rowKey: string | number }>(
        `SELECT ${key} AS rowKey, ${SELECT_COLUMNS} FROM sync_tasks
          WHERE device_id = :dev AND state = 'pending' AND lane = '${lane}'
            AND next_attempt_at <= :now ${after}
          ORDER BY next_attempt_at, ${key} LIMIT :limit`,
        {
          // Dates as text with their milliseconds (sqlDate): see devicesWithDueWork.
          replacements: {
            dev: deviceId,
            now: sqlDate(sequelize, now),
            limit: want,
            at: from?.at ?? null,
            key: from?.key ?? null,
          },
          type: QueryTypes.SELECT,
        },
      );
      if (rows.length === 0) break;
      const last = rows[rows.length - 1]!;
      // MySQL gives a Date: back to the column's text, milliseconds kept.
      const at =
        last.nextAttemptAt instanceof Date
          ? sqlDate(sequelize, last.nextAttemptAt)
          : String(last.nextAttemptAt);
      // Forward only: two reads of one stream may overlap, and the one that ends first must not
      // take the position back (the tasks between would be read again, and skipped).
      if (!from || isAfter({ at, key: last.rowKey }, from)) cursor[lane] = { at, key: last.rowKey };
      const kept = skip ? rows.filter((r) => !skip(r.id)) : rows;
      raws.push(...kept);
      // Read on only when tasks in flight took places and more may follow.
      if (rows.length < want || kept.length === rows.length) break;
    }
  }
  // Already in order: priority lane first, then the oldest due.
  return raws.map(toTask);
}
