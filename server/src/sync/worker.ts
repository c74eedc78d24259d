import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import schedule from 'node-schedule';
import { Op, type Sequelize } from 'sequelize';
import type { Database } from '../db/database.js';
import { SQLITE_CACHE_KIB } from '../db/sequelize.js';
import { asUrgent } from '../db/urgency.js';
import type { Models } from '../db/models.js';
import { shareLiveHub } from '../recognition/hub.js';
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
import { changedPeople, desiredFingerprint, peopleUpdatedSince, planSync } from './desired.js';
import { LeaseKeeper } from './lease.js';
import { RunReads } from './reads.js';
import { asError, SuccessRecorder } from './recorder.js';
import { streamDevice, type RunShared } from './stream.js';
import { keepAliveFetch } from './device-fetch.js';
import type { DeviceRun } from './push.js';
import { recordOutcome } from './record.js';
import { reconcileAll } from './reconcile.js';

export interface SyncWorkerOptions {
  client?: DeviceClient;
  /**
   * A database connection of the worker's own (SQLite): the worker's many small statements
   * then queue on it, not in front of every request's (the sqlite3 driver runs one statement
   * of a connection at a time). Closed by closeConnection().
   */
  connection?: { sequelize: Sequelize; models: Models };
  /** Pushes in flight per device. */
  perDevice?: number;
  /** Devices served at the same time. */
  devicesInParallel?: number;
  /** A full plan at least this often, even when the fingerprint did not change. */
  fullPlanEveryMs?: number;
  /** Reconciliation of every online device this often (0 = never by itself). */
  reconcileEveryMs?: number;
}

/**
 * While the scheduled loop pushes, the desired state is checked this often and planned again
 * when it changed, so a single-person change reaches the priority lane during a long backfill
 * instead of after it.
 */
const REPLAN_CHECK_MS = 1_000;

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
  /** The service clock when the last plan read the database. */
  private plannedAt: Date | undefined;
  private lastFullPlan = 0;
  /** Raised whenever a plan queued work: serving devices then claim it ahead of their batch. */
  private planEpoch = 0;
  private lastReconcile = 0;
  private lastRun = 0;
  private kicked = false;
  private started = false;
  private current: Promise<void> | undefined;
  private scheduled: schedule.Job | undefined;
  private readonly closeClient: () => void = () => undefined;

  private readonly ctx: AppContext;
  private readonly connection: SyncWorkerOptions['connection'];

  constructor(ctx: AppContext, opts: SyncWorkerOptions = {}) {
    this.connection = opts.connection;
    this.ctx = ctx;
    if (opts.connection) {
      // Everything else read through to the service's context as it is then.
      const db = Object.create(ctx.db, {
        sequelize: { value: opts.connection.sequelize },
      }) as Database;
      this.ctx = Object.create(ctx, {
        db: { value: db },
        models: { value: opts.connection.models },
      }) as AppContext;
      // The live stream and the routes' kick() know the service's own context.
      shareLiveHub(this.ctx, ctx);
    }
    this.perDevice = opts.perDevice ?? 4;
    if (opts.client) this.client = opts.client;
    else {
      // Keep-alive connections, a few more per device than pushes in flight (reconciliation).
      const transport = keepAliveFetch({ maxSockets: this.perDevice + 2 });
      this.client = createDeviceClient({ fetch: transport });
      this.closeClient = () => transport.close();
    }
    // Every device at once by default: a device left waiting holds its priority tasks too.
    this.devicesInParallel = opts.devicesInParallel ?? 64;
    this.fullPlanEveryMs = opts.fullPlanEveryMs ?? 10 * 60_000;
    this.reconcileEveryMs = opts.reconcileEveryMs ?? 10 * 60_000;
    workers.set(ctx, this);
  }

  /** Readies the worker's own connection, if it has one (the database is migrated by now). */
  async prepareConnection(): Promise<void> {
    await this.connection?.sequelize.query('PRAGMA busy_timeout = 5000');
    await this.connection?.sequelize.query(`PRAGMA cache_size = ${SQLITE_CACHE_KIB}`);
  }

  async closeConnection(): Promise<void> {
    await this.connection?.sequelize.close();
  }

  /**
   * One pass: recover leases, plan if anything changed, push due work until the budget. With
   * `replan`, changes made while pushing are planned (and so pushed) in the same pass, and the
   * devices are served as soon as their work is planned: the first plan of a new device of
   * 100,000 people does not hold up the devices planned before it.
   */
  async runOnce(
    opts: { budgetMs?: number; forcePlan?: boolean; replan?: boolean } = {},
  ): Promise<RunResult> {
    const { ctx } = this;
    const budgetMs = opts.budgetMs ?? 60_000;
    const recovered = await recoverExpiredLeases(ctx, ctx.clock.now());
    const leases = new LeaseKeeper(ctx);
    const shared: RunShared = {
      ctx,
      client: this.client,
      reads: new RunReads(ctx),
      recorder: new SuccessRecorder(ctx, leases),
      leases,
      perDevice: this.perDevice,
      // Open while the first plan runs (a new device of 100,000 people takes a while, and the
      // devices planned meanwhile are served); the budget counts from its end.
      deadline: opts.replan ? Infinity : performance.now() + budgetMs,
      planEpoch: () => this.planEpoch,
    };
    const serving = new Map<string, Promise<void>>();
    let pushed = 0;
    let failure: Error | undefined;
    const serveDue = async () => {
      if (performance.now() >= shared.deadline) return;
      const due = await asUrgent(() =>
        devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS),
      );
      for (const id of due) {
        if (serving.has(id) || serving.size >= this.devicesInParallel) continue;
        const done = this.serveDevice(id, shared)
          .then((n) => void (pushed += n))
          .catch((err: unknown) => void (failure ??= asError(err)))
          .finally(() => serving.delete(id));
        serving.set(id, done);
      }
    };
    let planned = 0;
    try {
      if (opts.replan) {
        // Work already due (a restart in the middle of a backfill) starts before the plan.
        await serveDue();
        planned += await this.plan(opts.forcePlan === true, serveDue);
        shared.deadline = performance.now() + budgetMs;
        await serveDue();
        // Changes are planned, and devices with new work joined, while the others push.
        while (serving.size > 0 && failure === undefined) {
          await Promise.race([...serving.values(), sleep(REPLAN_CHECK_MS)]);
          try {
            planned += await this.plan(false, serveDue);
            await serveDue();
          } catch (err) {
            // The next check (or the next run) plans again.
            ctx.logger.warn({ err }, 'sync plan during a run failed');
          }
        }
      } else {
        planned += await this.plan(opts.forcePlan === true);
        await serveDue();
      }
      while (serving.size > 0) await Promise.all([...serving.values()]);
    } finally {
      leases.stop();
      await shared.recorder.close().catch((err: unknown) => void (failure ??= asError(err)));
    }
    if (failure !== undefined) throw failure;
    const more =
      performance.now() >= shared.deadline &&
      (await devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS)).length > 0;
    return { planned, pushed, recovered, more };
  }

  /**
   * Plans when the fingerprint changed (or always with `force`, or when the last full plan is
   * older than fullPlanEveryMs). When only some people changed — one created or edited during
   * a backfill of 100,000 — only they are compared, in milliseconds instead of seconds. A full
   * plan goes device by device; between two devices, people changed since it began are planned
   * on their own (priority lane) and `afterDevice` runs (the worker starts serving the device).
   */
  private async plan(force: boolean, afterDevice?: () => Promise<void>): Promise<number> {
    const { ctx } = this;
    const now = ctx.clock.now();
    // The checks and a plan of a few people go ahead of a backfill's statements (urgency.ts).
    const fingerprint = await asUrgent(() => desiredFingerprint(ctx, now));
    const stale = performance.now() - this.lastFullPlan > this.fullPlanEveryMs;
    if (!force && !stale && fingerprint === this.fingerprint) return 0;
    const people =
      force || stale || !this.fingerprint || !this.plannedAt
        ? undefined
        : await asUrgent(() => changedPeople(ctx, this.fingerprint!, fingerprint, this.plannedAt!));
    let covered = { fingerprint, at: now };
    let queued = 0;
    // People changed while a full plan runs (minutes for a new device of 100,000 people) are
    // planned on their own alongside it, every REPLAN_CHECK_MS, not after it.
    const checkPeople = () =>
      asUrgent(async () => {
        const at = ctx.clock.now();
        const next = await desiredFingerprint(ctx, at);
        if (next === covered.fingerprint) return;
        const delta = await changedPeople(ctx, covered.fingerprint, next, covered.at);
        // Anything but a people-only change (a device registered meanwhile) waits for the plan
        // after this one; the people edited since are planned now all the same.
        const changed = delta ?? (await peopleUpdatedSince(ctx, covered.at));
        if (changed && changed.length > 0) {
          const result = await planSync(ctx, { personIds: changed });
          queued += result.queued;
          if (result.queued > 0) this.planEpoch++;
        }
        if (delta) covered = { fingerprint: next, at };
      });
    const afterEach = async () => {
      if (queued > 0) this.planEpoch++;
      await afterDevice?.();
    };
    const watching = new AbortController();
    const watcher = people
      ? Promise.resolve()
      : this.every(REPLAN_CHECK_MS, watching.signal, checkPeople);
    let result;
    try {
      result = people
        ? await asUrgent(() => planSync(ctx, { personIds: people }))
        : await planSync(ctx, { afterDevice: afterEach });
    } finally {
      watching.abort();
      await watcher;
    }
    queued += result.queued;
    if (!people) this.lastFullPlan = performance.now();
    if (queued > 0) this.planEpoch++;
    this.fingerprint = covered.fingerprint;
    this.plannedAt = covered.at;
    return queued;
  }

  /** Runs `fn` every `ms` until `signal` aborts; a failure is logged, the next try goes on. */
  private async every(ms: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      await sleep(ms, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      try {
        await fn();
      } catch (err) {
        this.ctx.logger.warn({ err }, 'sync plan during a run failed');
      }
    }
  }

  private async serveDevice(deviceId: string, shared: RunShared): Promise<number> {
    const { ctx } = this;
    const device = await ctx.models.Device.findByPk(deviceId);
    if (!device || !isOnline(device, ctx.clock.now(), ctx.config.heartbeatTimeoutS)) return 0;
    let run: DeviceRun;
    try {
      run = {
        device,
        target: await deviceTarget(ctx, device),
        // Only the capacity check reads it; counting 100,000 rows per run costs.
        held:
          device.capacity === null
            ? 0
            : await ctx.models.SyncTask.count({
                where: { deviceId, action: 'put', resultVersion: { [Op.ne]: null } },
              }),
        reads: shared.reads,
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
    return streamDevice(shared, run);
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
    // Devices join and changes are planned within a run, so it can be long; between runs every
    // device's stream drains (and device rows, keys and addresses are read again).
    const budgetMs = Math.max(15_000, this.ctx.config.push.intervalS * 1000);
    for (;;) {
      const result = await this.runOnce({ budgetMs, replan: true });
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
    this.closeClient();
  }
}

const workers = new WeakMap<object, SyncWorker>();

/** The worker of this service, when it runs (SVC_PUSH_WORKER); routes kick it after a change. */
export function syncWorkerOf(ctx: AppContext): SyncWorker | undefined {
  return workers.get(ctx);
}
