import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { InferAttributes } from 'sequelize';
import type { RecognitionEventRow } from '../../platform/db/business-models.js';
import { fromSqlDate, sqlDate } from '../../platform/db/sql-dates.js';

/**
 * Plain SQL for the per-event hot path (intake lookups, the event INSERT, delivery's read and
 * settle). Model instances, query building and moment-based date handling cost more CPU per
 * event than the rest of intake together; these statements use replacements (inlined and
 * escaped by Sequelize, so no prepared statement per IN-list length piles up on MySQL) and
 * plain rows. Dates are written exactly as Sequelize writes a DATE(3) on each dialect, so rows
 * from both paths sort and compare alike.
 */

/** A recognition_events row as plain data. */
export type EventRecord = InferAttributes<RecognitionEventRow>;

export const EVENT_TABLE = 'recognition_events';

/** Attribute → column, in the INSERT's order. */
const COLUMNS = [
  ['id', 'id'],
  ['eventId', 'event_id'],
  ['organizationId', 'organization_id'],
  ['deviceId', 'device_id'],
  ['deviceSn', 'device_sn'],
  ['deviceName', 'device_name'],
  ['personId', 'person_id'],
  ['personName', 'person_name'],
  ['spaceId', 'space_id'],
  ['spaceName', 'space_name'],
  ['score', 'score'],
  ['time', 'time'],
  ['receivedAt', 'received_at'],
  ['reportedTime', 'reported_time'],
  ['snapshotSha256', 'snapshot_sha256'],
  ['deliveryState', 'delivery_state'],
  ['deliveryAttempts', 'delivery_attempts'],
  ['nextDeliveryAt', 'next_delivery_at'],
  ['deliveredAt', 'delivered_at'],
  ['deliveryError', 'delivery_error'],
] as const satisfies readonly (readonly [keyof EventRecord, string])[];

/** `col AS attr` for every column, quoted for either dialect. */
export const EVENT_SELECT = COLUMNS.map(([attr, col]) => `\`${col}\` AS \`${attr}\``).join(', ');

/** Raw rows → records (dates and numbers as the model would give them). */
export function toRecord(raw: Record<string, unknown>): EventRecord {
  return {
    ...(raw as unknown as EventRecord),
    score: Number(raw.score),
    deliveryAttempts: Number(raw.deliveryAttempts),
    time: fromSqlDate(raw.time)!,
    receivedAt: fromSqlDate(raw.receivedAt)!,
    reportedTime: fromSqlDate(raw.reportedTime),
    nextDeliveryAt: fromSqlDate(raw.nextDeliveryAt),
    deliveredAt: fromSqlDate(raw.deliveredAt),
  };
}

/** `?, ?, …` for an IN list. */
export function marks(n: number): string {
  return new Array<string>(n).fill('?').join(', ');
}

export async function selectRows<T extends object>(
  sequelize: Sequelize,
  sql: string,
  replacements: unknown[],
  transaction?: Transaction,
): Promise<T[]> {
  return sequelize.query<T>(sql, {
    plain: false,
    raw: true,
    type: QueryTypes.SELECT,
    replacements,
    ...(transaction && { transaction }),
  });
}

/** One multi-row INSERT (atomic on its own); a duplicate event_id → UniqueConstraintError. */
export async function insertEvents(
  sequelize: Sequelize,
  rows: EventRecord[],
  transaction?: Transaction,
): Promise<void> {
  const tuple = `(${marks(COLUMNS.length)})`;
  const values: unknown[] = [];
  for (const row of rows) {
    for (const [attr] of COLUMNS) {
      const v = row[attr];
      values.push(v instanceof Date ? sqlDate(sequelize, v) : v);
    }
  }
  await sequelize.query(
    `INSERT INTO \`${EVENT_TABLE}\` (${COLUMNS.map(([, c]) => `\`${c}\``).join(', ')}) VALUES ${rows
      .map(() => tuple)
      .join(', ')}`,
    { type: QueryTypes.INSERT, replacements: values, ...(transaction && { transaction }) },
  );
}
