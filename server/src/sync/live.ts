import type { SyncChange } from '@svc/shared';
import type { SyncTaskRow } from '../platform/db/business-models.js';
import type { AppContext } from '../platform/context.js';

/** The `sync` event of the live stream (`GET /api/recognition/stream`): one task's new state. */
export type SyncLiveEvent = SyncChange;

/**
 * Tells the open live streams of the task's organization what became of a task. Costs nothing
 * when no stream is open (a bulk backfill runs millions of these).
 */
export function publishSyncState(
  ctx: Pick<AppContext, 'live'>,
  task: Pick<SyncTaskRow, 'id' | 'organizationId' | 'personId' | 'deviceId' | 'action'>,
  change: Pick<SyncLiveEvent, 'state' | 'attempts' | 'errorCode'>,
): void {
  const hub = ctx.live;
  if (hub.listenerCount() === 0) return;
  const data: SyncLiveEvent = {
    id: task.id,
    personId: task.personId,
    deviceId: task.deviceId,
    action: task.action,
    ...change,
  };
  hub.publish({ organizationId: task.organizationId, event: 'sync', data });
}
