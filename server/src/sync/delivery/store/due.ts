import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import { fromSqlDate, sqlDate } from '../../../platform/db/sql-dates.js';
import { LANES, type ReadCursor, type ReadPosition, type TaskRow } from '../../tasks/rows.js';

type Deps = Pick<AppContext, 'sync' | 'clock'>;

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
  for (const lane of LANES) {
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
          // Dates as text with their milliseconds (sqlDate): see devicesWithDueWork (tasks/store.ts).
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
