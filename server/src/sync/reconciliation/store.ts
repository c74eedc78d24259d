import type { AppContext } from '../../platform/context.js';
import type { DeviceRow, SyncTaskRow } from '../../platform/db/business-models.js';
import { onlineWhere } from '../../devices/service.js';

// The reconciliation wing's store: the tasks a read-back checks and its re-queues (read-back.ts
// decides what drifted), and the devices a periodic pass reads back (runs.ts).

type Deps = Pick<AppContext, 'sync'>;

/** The task fields the comparison reads. */
export type CheckedTask = Pick<
  SyncTaskRow,
  'id' | 'personId' | 'action' | 'personVersion' | 'photoSha256' | 'resultPhotoSha256'
>;

/** The ids of a device's succeeded tasks. */
export async function succeededTaskIds(deps: Deps, deviceId: string): Promise<string[]> {
  return (
    await deps.sync.db.models.SyncTask.findAll({
      attributes: ['id'],
      where: { deviceId, state: 'succeeded' },
      raw: true,
    })
  ).map((t) => t.id);
}

/** Those of these tasks still succeeded, with what the comparison reads. */
export async function succeededTasks(deps: Deps, ids: string[]): Promise<CheckedTask[]> {
  return deps.sync.db.models.SyncTask.findAll({
    attributes: ['id', 'personId', 'action', 'personVersion', 'photoSha256', 'resultPhotoSha256'],
    where: { id: ids, state: 'succeeded' },
    raw: true,
  });
}

/**
 * A drifted task back to pending in the priority lane, holding what the device was found with,
 * only if nothing else touched it since it was read. Whether it was written.
 */
export async function requeueDrifted(
  deps: Deps,
  task: CheckedTask,
  now: Date,
  {
    held,
    errorMessage,
    errorParams,
  }: {
    held: { version: number; photoSha256: string } | null;
    errorMessage: string;
    errorParams: string;
  },
): Promise<boolean> {
  const [count] = await deps.sync.db.models.SyncTask.update(
    {
      state: 'pending',
      lane: 'priority',
      attempts: 0,
      nextAttemptAt: now,
      resultVersion: held?.version ?? null,
      resultPhotoSha256: held?.photoSha256 ?? null,
      errorCode: 'drift',
      errorMessage,
      errorParams,
      finishedAt: null,
      updatedAt: now,
    },
    // Only if nothing else touched the task since it was read.
    {
      where: {
        id: task.id,
        state: 'succeeded',
        action: task.action,
        personVersion: task.personVersion,
      },
    },
  );
  return count > 0;
}

/** Every online device (heartbeat rule). */
export function onlineDevices(
  deps: Pick<AppContext, 'sync' | 'clock' | 'config'>,
): Promise<DeviceRow[]> {
  return deps.sync.db.models.Device.findAll({
    where: onlineWhere(deps.clock.now(), deps.config.heartbeatTimeoutS),
  });
}
