import type { z } from 'zod';
import {
  deviceSyncOut,
  idParams,
  devicesSyncOut,
  devicesSyncQuery,
  peopleSyncOut,
  peopleSyncQuery,
  personSyncOut,
  reconciliationStarted,
  retriedOut,
  syncTaskList,
  syncTaskOut,
  syncTasksQuery,
} from '@svc/shared';
import type { SyncTaskRow } from '../platform/db/business-models.js';

// The shapes are contracts shared with the site (`@svc/shared`).
export {
  deviceSyncOut,
  idParams,
  devicesSyncOut,
  devicesSyncQuery,
  peopleSyncOut,
  peopleSyncQuery,
  personSyncOut,
  reconciliationStarted,
  retriedOut,
  syncTaskList,
  syncTaskOut,
  syncTasksQuery,
};

/** `state`: as the API shows it (InFlight.shown: `running` while its push is in flight). */
export function toTaskOut(
  row: SyncTaskRow,
  sn: string,
  personName: string | null,
  state: SyncTaskRow['state'] = row.state,
): z.infer<typeof syncTaskOut> {
  return {
    id: row.id,
    personId: row.personId,
    deviceId: row.deviceId,
    sn,
    personName,
    action: row.action,
    lane: row.lane,
    state,
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
