import { z } from 'zod';
import { type SyncError, type syncTaskOut } from '@svc/shared';
import type { SyncTaskRow } from '../platform/db/business-models.js';

/** A failed task's `error`: its code, English sentence and (when stored) its values. */
export function taskError(
  row: Pick<SyncTaskRow, 'errorCode' | 'errorMessage' | 'errorParams'>,
): SyncError | null {
  if (!row.errorCode) return null;
  const params = storedParams.safeParse(parseJson(row.errorParams));
  return {
    code: row.errorCode,
    message: row.errorMessage ?? '',
    ...(params.success && params.data && { params: params.data }),
  };
}

const storedParams = z.record(z.string(), z.union([z.string(), z.number()])).nullable();

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

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
    error: taskError(row),
    updatedAt: row.updatedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
