import { reconciliationSummary, type ReconciliationSummary } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { DeviceRow } from '../../platform/db/business-models.js';
import {
  DeviceCallError,
  DeviceKeyUnavailable,
  deviceTarget,
  type DeviceClient,
} from '../../devices/service.js';
import { planSync } from '../planning/full-plan.js';
import { RECONCILE_PAGE, RECONCILE_PER_DEVICE } from '../knobs.js';
import { requeueDrifted, succeededTaskIds, succeededTasks, type CheckedTask } from './store.js';

/** Stored per device in runtime settings (the schema has no column for it). */
export { reconciliationSummary, type ReconciliationSummary };

export const reconciledKey = (deviceId: string) => `sync_reconciled.${deviceId}`;

export interface ReconcileOptions {
  /** Aborted when the service stops: the reconciliation ends at its next read. */
  stopping?: AbortSignal;
  pageSize?: number;
  /** When it started (the summary's `at`); now by default. */
  at?: Date;
}
/** What a reconciliation stopped by SIGTERM (the worker's or the registry's stop) says. */
export const RECONCILIATION_STOPPED = 'Stopped before it finished: the service was stopping.';

/**
 * Proof, not hope: reads back from the device every person its tasks say it holds (and every
 * person a finished delete says it does not) and re-queues, in the priority lane, each one
 * that differs — missing, another version or another photo hash than it acknowledged.
 */
export async function reconcileDevice(
  ctx: AppContext,
  client: DeviceClient,
  device: DeviceRow,
  { stopping, pageSize = RECONCILE_PAGE, at = ctx.clock.now() }: ReconcileOptions = {},
): Promise<ReconciliationSummary> {
  const summary: ReconciliationSummary = {
    at: at.toISOString(),
    checked: 0,
    requeued: 0,
    errors: 0,
  };
  try {
    await readBack(ctx, client, device, summary, { stopping, pageSize });
  } catch (err) {
    if (err instanceof DeviceKeyUnavailable) {
      summary.error = err.message;
      summary.errorParams = { detail: 'key_unavailable', sn: device.sn };
    } else {
      // Broken by something else (the database): the summary says so, if it can be stored.
      summary.error = `Did not finish: ${err instanceof Error ? err.message : String(err)}`;
      summary.errorParams = { detail: 'reconciliation_broken' };
      await ctx.settings.set(reconciledKey(device.id), summary).catch(() => undefined);
      throw err;
    }
  }
  await ctx.settings.set(reconciledKey(device.id), summary);
  ctx.logger.info({ device: device.id, ...summary }, 'sync reconciliation');
  return summary;
}

/** Reads the device's people back into `summary`; a stop ends it at the next step. */
async function readBack(
  ctx: AppContext,
  client: DeviceClient,
  device: DeviceRow,
  summary: ReconciliationSummary,
  { stopping, pageSize }: { stopping: AbortSignal | undefined; pageSize: number },
): Promise<void> {
  const stopped = () => {
    if (stopping?.aborted) {
      summary.error = RECONCILIATION_STOPPED;
      summary.errorParams = { detail: 'reconciliation_stopped' };
    }
    return stopping?.aborted === true;
  };
  if (stopped()) return;
  // Tasks first, so a person who belongs on the device but has none yet is covered too.
  await planSync(ctx, { deviceIds: [device.id] });
  if (stopped()) return;
  const target = await deviceTarget(ctx, device);
  let tasks: CheckedTask[] = [];
  let next = 0;
  let unreachable: DeviceCallError | undefined;
  const lane = async () => {
    while (next < tasks.length && !unreachable && !stopping?.aborted) {
      const task = tasks[next++]!;
      try {
        const held = await client.getPerson(target, task.personId);
        summary.checked++;
        if (await requeueIfDrifted(ctx, task, held)) summary.requeued++;
      } catch (err) {
        if (!(err instanceof DeviceCallError)) throw err;
        summary.errors++;
        if (err.failure === 'unreachable' || err.failure === 'unauthorized') {
          unreachable = err;
        }
      }
    }
  };
  // The ids first (sync_tasks_device_due holds them: no row is read), then the tasks page
  // by page as they are checked; one still succeeded when its page is read.
  const ids = await succeededTaskIds(ctx, device.id);
  for (let i = 0; i < ids.length && !unreachable && !stopping?.aborted; i += pageSize) {
    tasks = await succeededTasks(ctx, ids.slice(i, i + pageSize));
    next = 0;
    await Promise.all(Array.from({ length: RECONCILE_PER_DEVICE }, lane));
  }
  if (unreachable) {
    summary.error = unreachable.message;
    summary.errorParams = { ...unreachable.detail.params, detail: unreachable.detail.code };
  } else stopped();
}

async function requeueIfDrifted(
  ctx: AppContext,
  task: CheckedTask,
  held: { version: number; photoSha256: string } | null,
): Promise<boolean> {
  // The English for the task's message, and the detail code the site words (`sync.detail.*`).
  let problem: [string, string] | undefined;
  if (task.action === 'put') {
    if (!held) problem = ['the device no longer had the person', 'drift_absent'];
    else if (held.version !== task.personVersion)
      problem = [
        `the device had version ${held.version}, not ${task.personVersion}`,
        'drift_version',
      ];
    // What the device acknowledged: a device with photo limits holds a variant of the photo
    // (photos/variants/), whose hash is not the stored photo's.
    else if (held.photoSha256 !== (task.resultPhotoSha256 ?? task.photoSha256))
      problem = ['the device had another photo than the one sent', 'drift_photo'];
  } else if (held) {
    problem = ['the device still had the removed person', 'drift_removed'];
  }
  if (!problem) return false;
  const now = ctx.clock.now();
  return requeueDrifted(ctx, task, now, {
    held,
    errorMessage: `Reconciliation at ${now.toISOString()}: ${problem[0]}; queued again.`,
    errorParams: JSON.stringify({
      detail: problem[1],
      at: now.toISOString(),
      ...(held && { heldVersion: held.version }),
      version: task.personVersion,
    }),
  });
}

export async function lastReconciliation(
  ctx: AppContext,
  deviceId: string,
): Promise<ReconciliationSummary | null> {
  return (await ctx.settings.get(reconciledKey(deviceId), reconciliationSummary)) ?? null;
}
