import { performance } from 'node:perf_hooks';
import schedule from 'node-schedule';
import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/registry.js';
import { createDeviceClient, type DeviceClient } from '../../devices/service.js';
import { devicesWithDueWork } from '../tasks/store.js';
import { periodicDue } from '../tasks/periodic-due.js';
import { Planner } from '../planning/planner.js';
import {
  DEVICES_IN_PARALLEL,
  FULL_PLAN_EVERY_MS,
  PUSHES_PER_DEVICE,
  RECONCILE_EVERY_MS,
  REPLAN_CHECK_MS,
  RUN_BUDGET_MS,
  STREAM_MS,
} from '../knobs.js';
import { DeviceLeases, newHolder } from '../delivery/device-leases.js';
import { RunReads } from '../delivery/run-reads.js';
import { SuccessWriter } from '../delivery/success-writer.js';
import { RunDevices } from '../delivery/run-devices.js';
import type { RunShared } from '../delivery/stream.js';
import { Waker } from '../planning/wake-signal.js';
import { keepAliveFetch } from '../delivery/device-fetch.js';
import { reconcileAll } from '../reconciliation/runs.js';

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
  /** Due work remained when the time budget ran out: run again at once. */
  more: boolean;
}

/**
 * The push worker (job 'sync'): plans, reads due tasks per online device (priority lane
 * first), pushes them per PROTOCOL §3 with a per-device concurrency limit, and records each
 * outcome. Runs on the SVC_PUSH_INTERVAL cadence (node-schedule), again at once while work
 * remains, and on kick().
 */
export class SyncWorker implements Job {
  readonly name = 'sync';
  readonly client: DeviceClient;
  private readonly perDevice: number;
  private readonly devicesInParallel: number;
  private readonly reconcileEveryMs: number;
  private readonly planner: Planner;
  private lastReconcile = 0;
  private lastRun = 0;
  private kicked = false;
  private started = false;
  private current: Promise<void> | undefined;
  private reconciling: Promise<void> | undefined;
  private scheduled: schedule.Job | undefined;
  private readonly closeClient: () => Promise<void> = () => Promise.resolve();
  /** Wakes a run's replan loop when a change arrives (kick). */
  private readonly waker = new Waker();
  /** This worker's name in sync_device_leases (the devices it pushes to; device-leases.ts). */
  private readonly holder = newHolder();
  private kicks = 0;
  /** Aborted by stop(): the run, its plan and the reconciliation end without finishing. */
  private stopping = new AbortController();

  /**
   * Its statements go through `ctx.sync.db` (a connection of its own on SQLite); its tasks in
   * flight are `ctx.sync.inFlight`, the ones the API shows `running`.
   */
  constructor(
    private readonly ctx: AppContext,
    opts: SyncWorkerOptions = {},
  ) {
    this.perDevice = opts.perDevice ?? PUSHES_PER_DEVICE;
    if (opts.client) this.client = opts.client;
    else {
      // Keep-alive connections, a few more per device than pushes in flight (reconciliation).
      const transport = keepAliveFetch({ connections: this.perDevice + 2 });
      this.client = createDeviceClient({ fetch: transport });
      this.closeClient = () => transport.close();
    }
    // Every device at once by default: a device left waiting holds its priority tasks too.
    this.devicesInParallel = opts.devicesInParallel ?? DEVICES_IN_PARALLEL;
    this.planner = new Planner({
      ctx: this.ctx,
      waker: this.waker,
      fullPlanEveryMs: opts.fullPlanEveryMs ?? FULL_PLAN_EVERY_MS,
    });
    this.reconcileEveryMs = opts.reconcileEveryMs ?? RECONCILE_EVERY_MS;
  }

  /**
   * One bounded pass (a test's, a drain's): plans if anything changed, then pushes due work
   * until `budgetMs` has passed; `more` says work was left.
   */
  async runOnce(opts: { budgetMs?: number; forcePlan?: boolean } = {}): Promise<RunResult> {
    const deadline = performance.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
    return this.pass({ deadline, streamMs: Infinity }, async (run) => {
      run.planned += await this.planner.plan(opts.forcePlan === true);
      await run.devices.serveDue();
    });
  }

  /**
   * The worker's own pass: changes made while pushing are planned (and so pushed) in the same
   * pass, and the devices are served as soon as their work is planned: the first plan of a new
   * device of 100,000 people does not hold up the devices planned before it. It lasts while any
   * device has work; each device's stream ends after `streamMs` and the device is served again
   * at once, with its row, key and address read anew, so no device waits for the slowest one
   * to drain (a person created then would wait with it).
   */
  private runReplanning(streamMs: number): Promise<RunResult> {
    return this.pass({ deadline: Infinity, streamMs }, (run) => this.serveWhilePlanning(run));
  }

  /** A pass's frame: its devices' leases, reads and success writes, closed in order. */
  private async pass(
    limits: Pick<RunShared, 'deadline' | 'streamMs'>,
    body: (run: Pass) => Promise<void>,
  ): Promise<RunResult> {
    const { ctx } = this;
    const leases = new DeviceLeases(ctx, this.holder);
    const inFlight = ctx.sync.inFlight;
    const shared: RunShared = {
      ctx,
      client: this.client,
      reads: new RunReads(ctx),
      successes: new SuccessWriter(ctx, inFlight),
      leases,
      inFlight,
      perDevice: this.perDevice,
      ...limits,
      stopping: this.stopping.signal,
      priorityPlans: () => this.planner.priorityPlans,
    };
    const devices = new RunDevices({
      ctx,
      shared,
      parallel: this.devicesInParallel,
      restMs: REPLAN_CHECK_MS,
    });
    const run: Pass = { devices, planned: 0 };
    try {
      await body(run);
      await devices.drain();
    } finally {
      await shared.successes.close().catch((err: unknown) => devices.fail(err));
      // After the last outcome is written: then another process may take the devices.
      await leases.close().catch((err: unknown) => devices.fail(err));
    }
    if (devices.failure !== undefined) throw devices.failure;
    const more =
      !shared.stopping.aborted &&
      performance.now() >= shared.deadline &&
      (await devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS)).length > 0;
    return { planned: run.planned, pushed: devices.pushed, more };
  }

  /**
   * Serves the devices while plans run beside: a full plan of a new device of 100,000 people
   * takes a while, and devices whose stream ended meanwhile are served again at once. Changes
   * are planned as they come (checked once a second, at once after a kick); once no device has
   * work and no plan runs, the pass ends.
   */
  private async serveWhilePlanning(run: Pass): Promise<void> {
    const { ctx } = this;
    const { devices } = run;
    const { serving, serveDue } = devices;
    const stopping = this.stopping.signal;
    // Between the steps of a long plan: serve the devices, or end the plan if stopping (a
    // plan is redone from the fingerprint after a restart; nothing half-planned is lost).
    const betweenSteps = async () => {
      if (stopping.aborted) throw new PlanStopped();
      await serveDue();
    };
    let planning: Promise<void> | undefined;
    const startPlan = (first: boolean) => {
      planning = this.planner
        .plan(false, betweenSteps)
        .then((n) => void (run.planned += n))
        .catch((err: unknown) => {
          if (err instanceof PlanStopped) return;
          // A failed first plan ends the pass; later ones are tried again at the next check.
          if (first) devices.fail(err);
          else ctx.logger.warn({ err }, 'sync plan during a run failed');
        })
        .finally(() => (planning = undefined));
    };
    // Work already due (a restart in the middle of a backfill) starts before the plan.
    await serveDue();
    startPlan(true);
    let checkedAt = performance.now();
    let kicksSeen = this.kicks;
    while ((serving.size > 0 || planning) && devices.failure === undefined) {
      const waits = [...serving.values(), this.waker.wait(REPLAN_CHECK_MS)];
      await Promise.race(planning ? [...waits, planning] : waits);
      try {
        const checkDue =
          this.kicks !== kicksSeen || performance.now() - checkedAt >= REPLAN_CHECK_MS;
        const go = !planning && !stopping.aborted && devices.failure === undefined;
        if (go && serving.size > 0 && checkDue) {
          checkedAt = performance.now();
          kicksSeen = this.kicks;
          startPlan(false);
        }
        await serveDue();
      } catch (err) {
        ctx.logger.warn({ err }, 'sync run could not serve its devices');
      }
    }
    await planning;
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
    this.kicks++;
    this.waker.wake();
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
    // Devices join and changes are planned within a pass, so it can be long.
    for (;;) {
      const result = await this.runReplanning(STREAM_MS);
      if ((!result.more && !this.kicked) || this.stopping.signal.aborted) break;
      this.kicked = false;
    }
    const due = async () => {
      try {
        // Not during a backfill: it plans and reads back work whose pushes are still to come.
        return await periodicDue(this.ctx, {
          sinceLastMs: performance.now() - this.lastReconcile,
          everyMs: this.reconcileEveryMs,
        });
      } catch (err) {
        this.ctx.logger.warn({ err }, 'sync reconciliation not started');
        return false;
      }
    };
    if (!this.stopping.signal.aborted && !this.reconciling && (await due())) {
      // Beside the runs, not in their way: at 100,000 people × 20 devices it reads 2,000,000
      // people back (minutes), and a person created meanwhile must not wait for it. The
      // period counts from the end of a pass, so a pass longer than the period still leaves
      // the devices and the database a period of rest.
      this.reconciling = reconcileAll(this.ctx, {
        client: this.client,
        stopping: this.stopping.signal,
      })
        .then((requeued) => {
          if (requeued > 0) this.kick();
        })
        .catch((err: unknown) => this.ctx.logger.warn({ err }, 'sync reconciliation failed'))
        .finally(() => {
          this.reconciling = undefined;
          this.lastReconcile = performance.now();
        });
    }
  }

  start(): void {
    // The cadence is checked every second; a run never overlaps the previous one.
    this.started = true;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.lastReconcile = performance.now();
    this.scheduled = schedule.scheduleJob('* * * * * *', () => this.tick());
    this.kick();
  }

  /**
   * Ends the worker without waiting for its work (SIGTERM during a backfill must not wait
   * minutes): the pushes in flight end and are recorded, tasks read but not yet tried stay
   * pending, the devices are freed, a plan or reconciliation in progress stops at its next step.
   */
  async stop(): Promise<void> {
    this.started = false;
    this.scheduled?.cancel();
    this.scheduled = undefined;
    this.stopping.abort();
    this.waker.wake();
    await this.current;
    await this.reconciling;
    await this.closeClient();
  }
}

/** One pass's devices and what its plans queued. */
interface Pass {
  devices: RunDevices;
  planned: number;
}

/** Ends a plan at its next step: the worker is stopping. */
class PlanStopped extends Error {
  constructor() {
    super('sync plan stopped: the worker is stopping');
  }
}
