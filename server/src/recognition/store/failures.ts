import { DELIVERY_FAILURES_KEPT, panelFailureOf, type DeliveryFailure } from '@svc/shared';
import { QueryTypes, type Sequelize } from 'sequelize';
import { fromSqlDate, sqlDate } from '../../platform/db/sql-dates.js';
import { EVENT_TABLE, selectRows } from './events.js';

/**
 * The log of failed delivery tries (table recognition_delivery_failures). Written only when a
 * try fails, never on the success path; rows go with their event (ON DELETE CASCADE, so the
 * retention purge needs nothing of its own) and only the newest DELIVERY_FAILURES_KEPT per
 * event stay.
 */
export const FAILURE_TABLE = 'recognition_delivery_failures';

export interface FailedTry {
  /** recognition_events.id */
  eventId: string;
  attempt: number;
  at: Date;
  error: string;
}

/**
 * Logs one failed try. The INSERT reads the event in the same statement, so an event purged
 * meanwhile (or no longer pending) logs nothing instead of breaking the foreign key.
 */
export async function recordFailedTry(sequelize: Sequelize, failed: FailedTry): Promise<void> {
  await sequelize.query(
    `INSERT INTO ${FAILURE_TABLE} (event_id, attempt, failed_at, error)
       SELECT id, ?, ?, ? FROM ${EVENT_TABLE} WHERE id = ? AND delivery_state = 'pending'`,
    {
      type: QueryTypes.INSERT,
      replacements: [failed.attempt, sqlDate(sequelize, failed.at), failed.error, failed.eventId],
    },
  );
  const oldestKept = failed.attempt - DELIVERY_FAILURES_KEPT + 1;
  if (oldestKept <= 1) return;
  await sequelize.query(`DELETE FROM ${FAILURE_TABLE} WHERE event_id = ? AND attempt < ?`, {
    type: QueryTypes.DELETE,
    replacements: [failed.eventId, oldestKept],
  });
}

/** An event's kept failed tries, oldest first. */
export async function failedTries(
  sequelize: Sequelize,
  eventId: string,
): Promise<DeliveryFailure[]> {
  const rows = await selectRows<{ attempt: unknown; failedAt: unknown; error: string }>(
    sequelize,
    `SELECT attempt, failed_at AS failedAt, error FROM ${FAILURE_TABLE}
       WHERE event_id = ? ORDER BY attempt ASC, id ASC`,
    [eventId],
  );
  return rows.map((r) => {
    const { code, params } = panelFailureOf(r.error);
    return {
      attempt: Number(r.attempt),
      at: fromSqlDate(r.failedAt)!.toISOString(),
      error: r.error,
      errorCode: code,
      errorParams: params,
    };
  });
}
