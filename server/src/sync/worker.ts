import { performance } from 'node:perf_hooks';
import schedule from 'node-schedule';
import { Op } from 'sequelize';
import type { AppContext } from '../context.js';
import type { Job } from '../jobs/registry.js';
import {
  createDeviceClient,
  DeviceKeyUnavailable,
  deviceTarget,
  isOnline,
  type DeviceClient,
} from '../devices/service.js';
import { claimTasks, devicesWithDueWork, recoverExpiredLeases } from './claim.js';
import { desiredFingerprint, planSync } from './desired.js';
import { keepLeases } from './lease.js';
import { pushTask, type DeviceRun } from './push.js';
import { recordOutcome } from './record.js';
import { reconcileAll } from './reconcile.js';

export interface SyncWorkerOptions {
  client?: DeviceClient;
  /** Pushes in flight per device. */
  perDevice?: number;
  /** Devices served at the same time. */
  devicesInParallel?: number;
  /** A full plan at least this often, even when the fingerprint did not change. */
  fullPlanEveryMs?: number;
  /** Reconciliation of every online device this often (0 = never by itself). */
  reconcileEveryMs?: number;
}

export interface RunResult {
  planned: number;
  pushed: number;
  recovered: number;
  /** Due work remained when the time budget ran out: run again at once. */
  more: boolean;
}

/**
 * The push worker (job 'sync'): plans, claims due tasks per online device (priority lane
 * first), pushes them per PROTOCOL §3 with a per-device concurrency limit, and records each
 * outcome. Runs on the SVC_PUSH_INTERVAL cadence (node-schedule), again at once while work
 * remains, and on kick().
 */
export class SyncWorker implements Job {
  readonly name = 'sync';
  readonly client: DeviceClient;
  private readonly perDevice: number;
  private readonly devicesInParallel: number;
  private readonly fullPlanEveryMs: number;
  private readonly reconcileEveryMs: number;
  private fingerprint: string | undefined;
  private lastFullPlan = 0;
  private lastReconcile = 0;
  private lastRun = 0;
  private kicked = false;
  private started = false;
  private current: Promise<void> | undefined;
  private scheduled: schedule.Job | undefined;

  constructor(
    private readonly ctx: AppContext,
    opts: SyncWorkerOptions = {},
  ) {
    this.client = opts.client ?? createDeviceClient();
    this.perDevice = opts.perDevice ?? 4;
    this.devicesInParallel = opts.devicesInParallel ?? 16;
    this.fullPlanEveryMs = opts.fullPlanEveryMs ?? 10 * 60_000;
    this.reconcileEveryMs = opts.reconcileEveryMs ?? 10 * 60_000;
    workers.set(ctx, this);
  }

  /** One pass: recover leases, plan if anything changed, push due work until the budget. */
  async runOnce(opts: { budgetMs?: number; forcePlan?: boolean } = {}): Promise<RunResult> {
    const { ctx } = this;
    const deadline = performance.now() + (opts.budgetMs ?? 60_000);
    const recovered = await recoverExpiredLeases(ctx, ctx.clock.now());
    let planned = 0;
    const fingerprint = await desiredFingerprint(ctx, ctx.clock.now());
    const stale = performance.now() - this.lastFullPlan > this.fullPlanEveryMs;
    if (opts.forcePlan || stale || fingerprint !== this.fingerprint) {
      planned = (await planSync(ctx)).queued;
      this.fingerprint = fingerprint;
      this.lastFullPlan = performance.now();
    }
    let pushed = 0;
    const devices = await devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS);
    await eachLimited(devices, this.devicesInParallel, async (deviceId) => {
      pushed += await this.serveDevice(deviceId, deadline);
    });
    const more =
      performance.now() >= deadline &&
      (await devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS)).length > 0;
    return { planned, pushed, recovered, more };
  }

  private async serveDevice(deviceId: string, deadline: number): Promise<number> {
    const { ctx } = this;
    const device = await ctx.models.Device.findByPk(deviceId);
    if (!device || !isOnline(device, ctx.clock.now(), ctx.config.heartbeatTimeoutS)) return 0;
    let run: DeviceRun;
    try {
      run = {
        device,
        target: await deviceTarget(ctx, device),
        held: await ctx.models.SyncTask.count({
          where: { deviceId, action: 'put', resultVersion: { [Op.ne]: null } },
        }),
      };
    } catch (err) {
      if (!(err instanceof DeviceKeyUnavailable)) throw err;
      // Without its key nothing reaches the device: say so on every task instead of retrying.
      const failed = await claimTasks(ctx, deviceId, 1000, ctx.clock.now());
      for (const task of failed) {
        await recordOutcome(ctx, task, {
          kind: 'fail',
          code: 'device_key_unavailable',
          message: err.message,
          burn: false,
        });
      }
      return 0;
    }
    let pushed = 0;
    // Small claims keep every lease far shorter than LEASE_MS even against a slow device.
    while (performance.now() < deadline) {
      const tasks = await claimTasks(ctx, deviceId, this.perDevice * 4, ctx.clock.now());
      if (tasks.length === 0) break;
      const lease = keepLeases(ctx, tasks[0]!.claimedBy!);
      await eachLimited(tasks, this.perDevice, async (task) => {
        let outcome;
        try {
          outcome = await pushTask(ctx, this.client, run, task);
        } catch (err) {
          ctx.logger.error({ err, task: task.id }, 'sync push failed unexpectedly');
          outcome = {
            kind: 'retry',
            code: 'internal',
            message: 'An internal error stopped the push; see the service log.',
          } as const;
        }
        await recordOutcome(ctx, task, outcome);
        pushed++;
      }).finally(() => lease.stop());
    }
    return pushed;
  }

  /** Runs until no work is due (or `maxRuns`); what a test or a drain uses. */
  async runUntilIdle(maxRuns = 50): Promise<RunResult[]> {
    const results: RunResult[] = [];
    for (let i = 0; i < maxRuns; i++) {
      const result = await this.runOnce();
      results.push(result);
      if (!result.more && result.pushed === 0) break;
    }
    return results;
  }

  /** Asks for a run as soon as the current one (if any) ends. */
  kick(): void {
    if (!this.started) return;
    this.kicked = true;
    this.tick();
  }

  private tick(): void {
    if (this.current) return;
    const intervalMs = this.ctx.config.push.intervalS * 1000;
    const now = performance.now();
    if (!this.kicked && now - this.lastRun < intervalMs) return;
    this.kicked = false;
    this.lastRun = now;
    this.current = this.loop()
      .catch((err: unknown) => this.ctx.logger.warn({ err }, 'sync run failed'))
      .finally(() => {
        this.current = undefined;
        this.lastRun = performance.now();
      });
  }

  private async loop(): Promise<void> {
    const budgetMs = Math.max(5_000, this.ctx.config.push.intervalS * 1000);
    for (;;) {
      const result = await this.runOnce({ budgetMs });
      if (!result.more && !this.kicked) break;
      this.kicked = false;
    }
    if (
      this.reconcileEveryMs > 0 &&
      performance.now() - this.lastReconcile > this.reconcileEveryMs
    ) {
      this.lastReconcile = performance.now();
      await reconcileAll(this.ctx, this.client);
    }
  }

  start(): void {
    // The cadence is checked every second; a run never overlaps the previous one.
    this.started = true;
    this.lastReconcile = performance.now();
    this.scheduled = schedule.scheduleJob('* * * * * *', () => this.tick());
    this.kick();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.scheduled?.cancel();
    this.scheduled = undefined;
    await this.current;
  }
}

const workers = new WeakMap<object, SyncWorker>();

/** The worker of this service, when it runs (SVC_PUSH_WORKER); routes kick it after a change. */
export function syncWorkerOf(ctx: AppContext): SyncWorker | undefined {
  return workers.get(ctx);
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}
