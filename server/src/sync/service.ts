import { Op, type WhereOptions } from 'sequelize';
import type { z } from 'zod';
import type { AuditEntry } from '../audit/audit.js';
import type { AppContext } from '../platform/context.js';
import type { DeviceRow, SyncTaskRow } from '../platform/db/business-models.js';
import { createDeviceClient, isOnline } from '../devices/service.js';
import { httpErrors } from '../platform/http/errors.js';
import { publishSyncState } from './live.js';
import { NO_PHOTO, personNames, taskCountsOf, waitingPhotoByDevice } from './overview/store.js';
import {
  deviceIdsOf,
  deviceSns,
  findDevice,
  findPerson,
  findTask,
  heldCount,
  pageOfTasks,
  retryTaskRow,
  retryTasks,
  tasksOfPerson,
} from './store.js';
import { lastReconciliation } from './reconciliation/read-back.js';
import type {
  deviceSyncOut,
  personSyncOut,
  reconciliationStarted,
  syncTaskList,
  syncTaskOut,
  syncTasksQuery,
} from '@svc/shared';
import { toTaskOut, taskError } from './schemas.js';

/**
 * The synchronization's state and controls behind its routes (routes.ts): what the API shows of
 * the tasks (the in-flight registry's view) and the retries and reconciliations it starts.
 * `organizationId` limits every lookup to one organization; null is a superadmin (all).
 */
type Org = string | null;
type Actor = Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'>;

const found = <T>(row: T | null, what: string): T => {
  if (!row) throw httpErrors.notFound(`${what} not found.`);
  return row;
};
const snOf = deviceSns;
const deviceOf = async (ctx: AppContext, org: Org, id: string): Promise<DeviceRow> =>
  found(await findDevice(ctx, org, id), 'Device');

export async function listTasks(
  ctx: AppContext,
  org: Org,
  query: z.infer<typeof syncTasksQuery>,
): Promise<z.infer<typeof syncTaskList>> {
  const { inFlight } = ctx.sync;
  // By state or lane alone: device by device (sync_tasks_device_due leads with device, state
  // and lane; no index leads with state or lane).
  const byDevice =
    (query.state || query.lane) && !query.deviceId && !query.personId
      ? await deviceIdsOf(ctx, org)
      : undefined;
  const where: WhereOptions<SyncTaskRow> = {
    ...(org && { organizationId: org }),
    ...(query.personId && { personId: query.personId }),
    ...(query.deviceId && { deviceId: query.deviceId }),
    ...(byDevice && { deviceId: byDevice }),
    ...(query.state && inFlight.whereShown(query.state)),
    ...(query.lane && { lane: query.lane }),
    ...(query.reason && { [Op.and]: [waitingForPhoto(query.reason === 'no_photo')] }),
  };
  const { rows, count } = await pageOfTasks(ctx, where, query);
  const sn = await snOf(
    ctx,
    rows.map((r) => r.deviceId),
  );
  const names = await personNames(
    ctx.models,
    rows.map((r) => r.personId),
  );
  return {
    items: rows.map((r) =>
      toTaskOut(r, sn.get(r.deviceId) ?? '', names.get(r.personId) ?? null, inFlight.shown(r)),
    ),
    total: count,
  };
}

export async function personSync(
  ctx: AppContext,
  org: Org,
  personId: string,
): Promise<z.infer<typeof personSyncOut>> {
  found(await findPerson(ctx, org, personId), 'Person');
  const rows = await tasksOfPerson(ctx, personId);
  const sn = await snOf(
    ctx,
    rows.map((r) => r.deviceId),
  );
  return {
    items: rows.map((r) => ({
      id: r.id,
      deviceId: r.deviceId,
      sn: sn.get(r.deviceId) ?? '',
      action: r.action,
      state: ctx.sync.inFlight.shown(r),
      version: r.personVersion,
      photoSha256: r.photoSha256,
      resultVersion: r.resultVersion,
      resultPhotoSha256: r.resultPhotoSha256,
      attempts: r.attempts,
      nextAttemptAt: r.nextAttemptAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      ...(r.errorCode && { error: taskError(r)! }),
    })),
  };
}

export async function deviceSync(
  ctx: AppContext,
  org: Org,
  deviceId: string,
): Promise<z.infer<typeof deviceSyncOut>> {
  const device = await deviceOf(ctx, org, deviceId);
  const counts = { pending: 0, running: 0, succeeded: 0, failed: 0, waitingPhoto: 0 };
  for (const row of (await taskCountsOf(ctx.models, {}, [device.id])).counts) {
    if (row.state in counts) counts[row.state] = row.count;
  }
  // Waiting for the person's photo is no failure: counted apart (issue 30, item 9).
  counts.waitingPhoto = (await waitingPhotoByDevice(ctx.models, [device.id])).get(device.id) ?? 0;
  counts.failed -= counts.waitingPhoto;
  // Pending in the database, pushed right now.
  const pushing = Math.min(counts.pending, ctx.sync.inFlight.ids(device.id).length);
  counts.pending -= pushing;
  counts.running += pushing;
  return {
    deviceId: device.id,
    sn: device.sn,
    online: isOnline(device, ctx.clock.now(), ctx.config.heartbeatTimeoutS),
    counts,
    held: await heldCount(ctx, device.id),
    capacity: device.capacity,
    lastReconciliation: await lastReconciliation(ctx, device.id),
    reconcilingSince: ctx.sync.reconciliations.since(device.id)?.toISOString() ?? null,
  };
}

/** A task tried again now, attempts starting over; 409 while it is being pushed. */
export async function retryTask(
  ctx: AppContext,
  org: Org,
  taskId: string,
  actor: Actor,
): Promise<z.infer<typeof syncTaskOut>> {
  const task = found(await findTask(ctx, org, taskId), 'Sync task');
  if (ctx.sync.inFlight.shown(task) === 'running') {
    throw httpErrors.conflict('The task is being pushed right now; look again in a moment.', {
      reason: 'sync_task_running',
    });
  }
  const now = ctx.clock.now();
  await ctx.db.sequelize.transaction(async (transaction) => {
    await retryTaskRow(task, now, transaction);
    await ctx.audit.record(
      {
        action: 'sync.retry',
        target: { type: 'sync_task', id: task.id },
        summary: `retry of ${task.action} of person ${task.personId} on device ${task.deviceId}`,
        message: {
          code: 'sync_task_retried',
          params: { action: task.action, personId: task.personId, deviceId: task.deviceId },
        },
        ...actor,
      },
      transaction,
    );
  });
  publishSyncState(ctx, task, { state: task.state, attempts: task.attempts, errorCode: null });
  ctx.sync.worker?.kick();
  const sn = await snOf(ctx, [task.deviceId]);
  const names = await personNames(ctx.models, [task.personId]);
  return toTaskOut(task, sn.get(task.deviceId) ?? '', names.get(task.personId) ?? null);
}

/** Every failed task of a device tried again now; resolves with how many. */
/**
 * Tasks waiting for the person's photo (`waiting`), or every other task. They are stored as
 * failed (PROTOCOL's four states), but nothing failed: the task runs when a photo is added.
 */
function waitingForPhoto(waiting: boolean): WhereOptions<SyncTaskRow> {
  return waiting
    ? { state: 'failed', errorCode: NO_PHOTO }
    : {
        [Op.or]: [
          { state: { [Op.ne]: 'failed' } },
          { errorCode: null },
          { errorCode: { [Op.ne]: NO_PHOTO } },
        ],
      };
}

export async function retryFailed(
  ctx: AppContext,
  org: Org,
  deviceId: string,
  actor: Actor,
): Promise<number> {
  const device = await deviceOf(ctx, org, deviceId);
  const now = ctx.clock.now();
  const retried = await ctx.db.sequelize.transaction(async (transaction) => {
    const count = await retryTasks(
      ctx,
      // A task waiting for a photo would only wait again: it runs when the photo is added.
      { deviceId: device.id, state: 'failed', [Op.and]: [waitingForPhoto(false)] },
      now,
      transaction,
    );
    await ctx.audit.record(
      {
        action: 'sync.retry_failed',
        target: { type: 'device', id: device.id },
        summary: `retry of ${count} failed task(s) on device ${device.sn}`,
        message: { code: 'sync_failed_retried', params: { count, sn: device.sn } },
        ...actor,
      },
      transaction,
    );
    return count;
  });
  ctx.sync.worker?.kick();
  return retried;
}

/**
 * Starts reading a device's people back (or joins the read running). Answered at once (at
 * 100,000 people the read-back takes minutes); the audit entry and the kick come when it ends.
 */
export async function startReconciliation(
  ctx: AppContext,
  org: Org,
  deviceId: string,
  actor: Actor,
): Promise<z.infer<typeof reconciliationStarted>> {
  const device = await deviceOf(ctx, org, deviceId);
  const client = ctx.sync.worker?.client ?? createDeviceClient();
  const run = ctx.sync.reconciliations.run(ctx, device, { client });
  if (!run.alreadyRunning) {
    void run.done
      .then(
        async (summary) => {
          if (summary.requeued > 0) ctx.sync.worker?.kick();
          await ctx.audit.record({
            action: 'sync.reconcile',
            target: { type: 'device', id: device.id },
            summary: `reconciliation of device ${device.sn}: ${summary.checked} checked, ${summary.requeued} queued again, ${summary.errors} error(s)${summary.error ? ` (${summary.error})` : ''}`,
            message: {
              code: 'sync_reconciled',
              params: {
                sn: device.sn,
                checked: summary.checked,
                requeued: summary.requeued,
                errors: summary.errors,
              },
            },
            ...actor,
          });
        },
        (err: unknown) => ctx.logger.warn({ err, device: device.id }, 'sync reconciliation failed'),
      )
      .catch((err: unknown) => ctx.logger.warn({ err }, 'sync reconciliation not audited'));
  }
  return {
    deviceId: device.id,
    startedAt: run.startedAt.toISOString(),
    alreadyRunning: run.alreadyRunning,
  };
}
