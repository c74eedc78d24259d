import { QueryTypes, type Sequelize } from 'sequelize';
import { sqlDate } from '../../platform/db/sql-dates.js';
import {
  EVENT_SELECT,
  EVENT_TABLE,
  marks,
  selectRows,
  toRecord,
  type EventRecord,
} from './events.js';

/**
 * The panel outbox's statements (panel-outbox/outbox.ts): the queue is recognition_events'
 * pending rows, oldest event time first. Plain SQL and rows (events.ts): the head's read and
 * the settle run for every event.
 */

/** What a settle may change of the rows it settles. */
export type OutboxChanges = Partial<
  Pick<
    EventRecord,
    'deliveryState' | 'deliveryAttempts' | 'deliveredAt' | 'nextDeliveryAt' | 'deliveryError'
  >
>;

/** Whether anything waits: one indexed read, for idle polls. */
export async function anyPending(sequelize: Sequelize): Promise<boolean> {
  const rows = await selectRows(
    sequelize,
    `SELECT id FROM ${EVENT_TABLE} WHERE delivery_state = 'pending' LIMIT 1`,
    [],
  );
  return rows.length > 0;
}

/** The head of the queue: up to `batch` pending events in the order the panel sees them. */
export async function pendingHead(sequelize: Sequelize, batch: number): Promise<EventRecord[]> {
  const rows = await selectRows<Record<string, unknown>>(
    sequelize,
    `SELECT ${EVENT_SELECT} FROM ${EVENT_TABLE} WHERE delivery_state = 'pending'
       ORDER BY \`time\` ASC, received_at ASC, id ASC LIMIT ${Math.max(1, Math.floor(batch))}`,
    [],
  );
  return rows.map(toRecord);
}

/**
 * One UPDATE of the rows' delivery columns, only while they are still pending (a purge may have
 * moved them on); `countTry` adds one to their attempts.
 */
export async function settleRows(
  sequelize: Sequelize,
  ids: string[],
  changes: OutboxChanges,
  countTry: boolean,
): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [];
  const put = (column: string, v: unknown) => {
    sets.push(`${column} = ?`);
    values.push(v instanceof Date ? sqlDate(sequelize, v) : v);
  };
  if (changes.deliveryState !== undefined) put('delivery_state', changes.deliveryState);
  if (changes.deliveryAttempts !== undefined) put('delivery_attempts', changes.deliveryAttempts);
  if (changes.deliveredAt !== undefined) put('delivered_at', changes.deliveredAt);
  if (changes.nextDeliveryAt !== undefined) put('next_delivery_at', changes.nextDeliveryAt);
  if (changes.deliveryError !== undefined) put('delivery_error', changes.deliveryError);
  if (countTry) sets.push('delivery_attempts = delivery_attempts + 1');
  await sequelize.query(
    `UPDATE ${EVENT_TABLE} SET ${sets.join(', ')}
       WHERE id IN (${marks(ids.length)}) AND delivery_state = 'pending'`,
    { type: QueryTypes.UPDATE, replacements: [...values, ...ids] },
  );
}
