import type { AppContext } from '../../platform/context.js';
import type { DeviceRow } from '../../platform/db/business-models.js';
import type { DeviceClient } from '../../devices/service.js';
import type { Job } from '../../platform/jobs/registry.js';
import { reconcileDevice, type ReconciliationSummary } from './read-back.js';
import { onlineDevices } from './store.js';

/** A device's reconciliation in progress. */
export interface ReconcileRun {
  startedAt: Date;
  /** Its summary (also stored as the device's last reconciliation); rejects if it broke. */
  done: Promise<ReconciliationSummary>;
}

export interface RunRequest {
  client: DeviceClient;
  /** Ends this run at its next read, besides this registry's own stop(). */
  stopping?: AbortSignal;
  pageSize?: number;
}

/**
 * The reconciliations running in this process, one per device at most (job
 * `reconciliations`). An on-demand request answers at once and the work goes on here: at
 * 100,000 people a device is read back in minutes, longer than a proxy waits for an answer. A
 * request for a device already being reconciled (by the periodic pass or an earlier request)
 * joins that one. stop() — SIGTERM — ends them all at their next read.
 */
export class Reconciliations implements Job {
  readonly name = 'reconciliations';
  private readonly runs = new Map<string, ReconcileRun>();
  private stopping = new AbortController();

  /** The device's run in progress, or a new one. */
  run(
    ctx: AppContext,
    device: DeviceRow,
    request: RunRequest,
  ): ReconcileRun & { alreadyRunning: boolean } {
    const current = this.runs.get(device.id);
    if (current) return { ...current, alreadyRunning: true };
    const stopping = request.stopping
      ? AbortSignal.any([this.stopping.signal, request.stopping])
      : this.stopping.signal;
    const startedAt = ctx.clock.now();
    const done = reconcileDevice(ctx, request.client, device, {
      stopping,
      pageSize: request.pageSize,
      at: startedAt,
    }).finally(() => this.runs.delete(device.id));
    const run = { startedAt, done };
    this.runs.set(device.id, run);
    return { ...run, alreadyRunning: false };
  }

  /** When the device's reconciliation in progress started, if one is. */
  since(deviceId: string): Date | undefined {
    return this.runs.get(deviceId)?.startedAt;
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  start(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }
}

/**
 * Every online device, one after another (the worker's periodic pass), until `stopping` (or
 * the registry's stop) aborts; a device already being reconciled is waited for, not read twice.
 * Resolves with how many tasks were queued again.
 */
export async function reconcileAll(ctx: AppContext, request: RunRequest): Promise<number> {
  const registry = ctx.sync.reconciliations;
  const devices = await onlineDevices(ctx);
  let requeued = 0;
  for (const device of devices) {
    if (request.stopping?.aborted || registry.stopped) break;
    const run = registry.run(ctx, device, request);
    // A run someone else started does not end with `stopping`: stop waiting for it instead.
    const summary =
      run.alreadyRunning && request.stopping
        ? await unlessAborted(run.done, request.stopping)
        : await run.done;
    requeued += summary?.requeued ?? 0;
  }
  return requeued;
}

/** `done`, or undefined as soon as `signal` aborts (its listener removed either way). */
async function unlessAborted<T>(done: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  let onAbort = () => {};
  const stopped = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([done, stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
