import type { InferAttributes } from 'sequelize';
import type { SyncTaskRow } from '../../platform/db/business-models.js';

/**
 * The rules of a `sync_tasks` row that every wing shares: its lanes, the shape a stream reads,
 * where a stream's reading got to, and what a new, re-planned or retried task starts from.
 * Planning, delivery and reconciliation import these, never each other (README, floor plan).
 */

/** A task's queue: a device's stream reads `priority` ahead of `bulk`. */
export type Lane = SyncTaskRow['lane'];

/** The lanes in the order a device's stream reads them. */
export const LANES = ['priority', 'bulk'] as const satisfies readonly Lane[];

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

/** A place in one lane of a device's due tasks. */
export interface ReadPosition {
  /** `next_attempt_at` as the column's text. */
  at: string;
  /** The row's key: its id on MySQL (text), its rowid on SQLite (a number). */
  key: string | number;
}

/** Where a device's reading got to, per lane (the next read starts after it). */
export type ReadCursor = Partial<Record<Lane, ReadPosition>>;

/** A task's attempt bookkeeping as when it was new: what a re-plan and a retry both start from. */
export const freshAttempts = (now: Date) =>
  ({
    attempts: 0,
    nextAttemptAt: now,
    errorCode: null,
    errorMessage: null,
    errorParams: null,
    finishedAt: null,
    updatedAt: now,
  }) as const;

/** A task tried again now (a retry by hand, a device's photos sent again): pending, fresh. */
export const retryValues = (now: Date) => ({ state: 'pending' as const, ...freshAttempts(now) });
