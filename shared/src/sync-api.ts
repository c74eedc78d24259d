import { z } from 'zod';
import { listOf, pageQuery } from './admin-api.js';

// --- synchronization to recognition devices (administrator API) ------------------------------
const uuid = z.uuid();
export const syncState = z.enum(['pending', 'running', 'succeeded', 'failed']);
export type SyncState = z.infer<typeof syncState>;
export const syncLane = z.enum(['priority', 'bulk']);
export type SyncLane = z.infer<typeof syncLane>;
/**
 * Why the last attempt failed: a stable code, an English sentence (logs, API users) and, on
 * tasks failed since issue 34, `params`: `detail` names the sentence a client words in its own
 * language, the other entries fill it (a serial number, an HTTP status, the attempt and `of`
 * its limit, `gaveUp` once the task stopped retrying).
 */
const syncError = z.object({
  code: z.string(),
  message: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type SyncError = z.infer<typeof syncError>;

export const syncTasksQuery = pageQuery.extend({
  personId: uuid.optional(),
  deviceId: uuid.optional(),
  state: syncState.optional(),
  lane: syncLane.optional(),
  /**
   * `no_photo`: only the tasks waiting for the person's photo (failed with code `no_photo`,
   * never tried on the device); `other`: every task but those. Absent: both.
   */
  reason: z.enum(['no_photo', 'other']).optional(),
});

export const syncTaskOut = z.object({
  id: z.string(),
  personId: z.string(),
  deviceId: z.string(),
  sn: z.string(),
  /** The person's current name; null once the person is deleted (a `delete` task remains). */
  personName: z.string().nullable(),
  action: z.enum(['put', 'delete']),
  lane: syncLane,
  state: syncState,
  /** The person's version (and photo) this task brings to the device. */
  version: z.number().int(),
  photoSha256: z.string().nullable(),
  /** What the device last acknowledged holding (null: nothing, or not yet known). */
  resultVersion: z.number().int().nullable(),
  resultPhotoSha256: z.string().nullable(),
  /** Failed attempts so far (8 and the task is `failed`); a success does not count one. */
  attempts: z.number().int(),
  /** When a pending task is tried next (for a finished task: when it was last due). */
  nextAttemptAt: z.string(),
  error: syncError.nullable(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type SyncTaskOut = z.infer<typeof syncTaskOut>;
export const syncTaskList = listOf(syncTaskOut);

/** `GET /api/people/{id}/sync`: the person's state on every device that has a task for them. */
export const personSyncOut = z.object({
  items: z.array(
    z.object({
      /** The task's id (`POST /api/sync/tasks/{id}/retry`). */
      id: z.string(),
      deviceId: z.string(),
      sn: z.string(),
      action: z.enum(['put', 'delete']),
      state: syncState,
      version: z.number().int(),
      photoSha256: z.string().nullable(),
      resultVersion: z.number().int().nullable(),
      resultPhotoSha256: z.string().nullable(),
      /** Failed attempts so far. */
      attempts: z.number().int(),
      /** When a pending task is tried next. */
      nextAttemptAt: z.string(),
      updatedAt: z.string(),
      error: syncError.optional(),
    }),
  ),
});
export type PersonSyncOut = z.infer<typeof personSyncOut>;

export const reconciliationSummary = z.object({
  at: z.string(),
  checked: z.number().int(),
  requeued: z.number().int(),
  errors: z.number().int(),
  error: z.string().optional(),
  /** `error` by its values, as a task's `params` (`detail` names the sentence; issue 34). */
  errorParams: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type ReconciliationSummary = z.infer<typeof reconciliationSummary>;

/**
 * `POST /api/sync/devices/{id}/reconcile` answers 202 at once: reading 100,000 people back
 * takes minutes. The result lands in the device's `lastReconciliation`.
 */
export const reconciliationStarted = z.object({
  deviceId: z.string(),
  startedAt: z.string(),
  /** One was already in progress for the device: this is that one, no second is started. */
  alreadyRunning: z.boolean(),
});
export type ReconciliationStarted = z.infer<typeof reconciliationStarted>;

/** Tasks by state (`running`: pending in the database, pushed right now). */
const stateCounts = z.object({
  pending: z.number().int(),
  running: z.number().int(),
  succeeded: z.number().int(),
  /** Failed, except those waiting for a photo. */
  failed: z.number().int(),
  /**
   * Stored as failed with code `no_photo`: never sent, the person has no photo yet; each runs by
   * itself once a photo is added (as `GET /api/sync/tasks?reason=no_photo` lists them).
   */
  waitingPhoto: z.number().int(),
});

export const deviceSyncOut = z.object({
  deviceId: z.string(),
  sn: z.string(),
  online: z.boolean(),
  counts: stateCounts,
  /** People the device holds by the acknowledged results. */
  held: z.number().int(),
  capacity: z.number().int().nullable(),
  lastReconciliation: reconciliationSummary.nullable(),
  /** When the reconciliation in progress (in the answering process) started; null if none. */
  reconcilingSince: z.string().nullable(),
});
export type DeviceSyncOut = z.infer<typeof deviceSyncOut>;

export const retriedOut = z.object({ retried: z.number().int() });

/** `GET /api/sync/people?ids=a,b,c`: how the synchronization of each of these people stands. */
export const peopleSyncQuery = z.object({
  ids: z
    .string()
    .transform((text) => text.split(','))
    .pipe(z.array(uuid).min(1).max(100)),
});
export const peopleSyncOut = z.object({
  /** One entry per asked id that has any task (a person no device concerns is left out). */
  items: z.array(z.object({ personId: z.string(), counts: stateCounts })),
});
export type PeopleSyncOut = z.infer<typeof peopleSyncOut>;

/** `GET /api/sync/devices?ids=`: the devices list's sync counts, up to 100 devices at once. */
export const devicesSyncQuery = peopleSyncQuery;
export const devicesSyncOut = z.object({
  /** One entry per asked id of a device the administrator may see (counts may all be 0). */
  items: z.array(z.object({ deviceId: z.string(), counts: stateCounts })),
});
export type DevicesSyncOut = z.infer<typeof devicesSyncOut>;
