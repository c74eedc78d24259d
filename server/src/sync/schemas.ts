import { z } from 'zod';
import { idParams, listOf, pageQuery } from '@svc/shared';
import type { SyncTaskRow } from '../db/business-models.js';
import { reconciliationSummary } from './reconcile.js';

export { idParams };

const uuid = z.uuid();
const state = z.enum(['pending', 'running', 'succeeded', 'failed']);
const error = z.object({ code: z.string(), message: z.string() });

export const syncTasksQuery = pageQuery.extend({
  personId: uuid.optional(),
  deviceId: uuid.optional(),
  state: state.optional(),
});

export const syncTaskOut = z.object({
  id: z.string(),
  personId: z.string(),
  deviceId: z.string(),
  sn: z.string(),
  action: z.enum(['put', 'delete']),
  lane: z.enum(['priority', 'bulk']),
  state,
  /** The person's version (and photo) this task brings to the device. */
  version: z.number().int(),
  photoSha256: z.string().nullable(),
  /** What the device last acknowledged holding (null: nothing, or not yet known). */
  resultVersion: z.number().int().nullable(),
  resultPhotoSha256: z.string().nullable(),
  attempts: z.number().int(),
  nextAttemptAt: z.string(),
  error: error.nullable(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export const syncTaskList = listOf(syncTaskOut);

export const personSyncOut = z.object({
  items: z.array(
    z.object({
      deviceId: z.string(),
      sn: z.string(),
      action: z.enum(['put', 'delete']),
      state,
      version: z.number().int(),
      photoSha256: z.string().nullable(),
      resultVersion: z.number().int().nullable(),
      resultPhotoSha256: z.string().nullable(),
      updatedAt: z.string(),
      error: error.optional(),
    }),
  ),
});

export const deviceSyncOut = z.object({
  deviceId: z.string(),
  sn: z.string(),
  online: z.boolean(),
  counts: z.object({
    pending: z.number().int(),
    running: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
  }),
  /** People the device holds by the acknowledged results. */
  held: z.number().int(),
  capacity: z.number().int().nullable(),
  lastReconciliation: reconciliationSummary.nullable(),
});

export const retriedOut = z.object({ retried: z.number().int() });

export function toTaskOut(row: SyncTaskRow, sn: string): z.infer<typeof syncTaskOut> {
  return {
    id: row.id,
    personId: row.personId,
    deviceId: row.deviceId,
    sn,
    action: row.action,
    lane: row.lane,
    state: row.state,
    version: row.personVersion,
    photoSha256: row.photoSha256,
    resultVersion: row.resultVersion,
    resultPhotoSha256: row.resultPhotoSha256,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt.toISOString(),
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    updatedAt: row.updatedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
