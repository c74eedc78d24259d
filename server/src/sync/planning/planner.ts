import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../platform/context.js';
import { periodicDue } from '../tasks/periodic-due.js';
import { changesSince, planSync } from './full-plan.js';
import { peopleUpdatedSince } from './store/desired.js';
import { FingerprintReader } from './fingerprint.js';
import type { Lane } from '../tasks/rows.js';
import type { Waker } from './wake-signal.js';
import { DEVICE_GATHER_MAX_MS, DEVICE_GATHER_MS, REPLAN_CHECK_MS } from '../knobs.js';

/**
 * Decides what to plan and plans it, for one worker: nothing while the fingerprint is
 * unchanged; the people and devices that changed on their own when that can be trusted; and
 * everything otherwise (or when forced, or when the last full plan is older than
 * `fullPlanEveryMs`).
 */
export class Planner {
  private fingerprint: string | undefined;
  /** The service clock when the last plan read the database. */
  private plannedAt: Date | undefined;
  private lastFullPlan = 0;
  /**
   * How many plans have queued priority work: a serving device that sees it change reads that
   * work ahead of its batch.
   */
  priorityPlans = 0;
  private readonly fingerprints: FingerprintReader;

  constructor(private readonly deps: { ctx: AppContext; waker: Waker; fullPlanEveryMs: number }) {
    this.fingerprints = new FingerprintReader(deps.ctx);
  }

  /**
   * Plans what changed since the last plan; resolves with the tasks queued. People changed —
   * one created or edited during a backfill of 100,000 — are compared alone, in milliseconds,
   * in the priority lane. A device registered, moved or re-enabled is planned for everyone,
   * and for no other device. A full plan goes device by device. While devices are planned
   * (a new one of 100,000 people takes a while), changes are checked every REPLAN_CHECK_MS and
   * planned beside it: people at once, devices registered meanwhile in a plan of their own.
   * `afterDevice` runs between the steps of a long plan (the worker serves its devices).
   */
  async plan(force: boolean, afterDevice?: () => Promise<void>): Promise<number> {
    const { ctx } = this.deps;
    const now = ctx.clock.now();
    const started = performance.now();
    // The checks and a plan of a few people go ahead of a backfill's statements (db/urgency.ts).
    const fingerprint = await ctx.sync.db.urgent(() => this.fingerprints.read(now));
    // The periodic full plan is a safety net (every device against everyone: heavy statements
    // at a large site): not during a backfill (periodicDue).
    const stale =
      !force &&
      (await periodicDue(ctx, {
        sinceLastMs: performance.now() - this.lastFullPlan,
        everyMs: this.deps.fullPlanEveryMs,
      }));
    if (!force && !stale && fingerprint === this.fingerprint) return 0;
    const changes =
      force || stale || !this.fingerprint || !this.plannedAt
        ? undefined
        : await ctx.sync.db.urgent(() =>
            changesSince(ctx, this.fingerprint!, fingerprint, this.plannedAt!),
          );
    const pass = new PlanPass(
      ctx,
      this.fingerprints,
      { fingerprint, at: now },
      afterDevice,
      () => this.priorityPlans++,
    );
    // While devices are planned, changes are checked for and planned beside them.
    const watching = new AbortController();
    const watcher =
      changes && changes.devices.length === 0
        ? Promise.resolve()
        : this.every(REPLAN_CHECK_MS, watching.signal, () => pass.check());
    try {
      if (changes) await pass.planChanges(changes);
      else await pass.planAll();
    } finally {
      // The devices' plans end while changes are still watched for (a check may add one).
      await pass.settle();
      watching.abort();
      await watcher;
      await pass.settle();
    }
    if (pass.failure) throw pass.failure.err;
    if (!changes) {
      this.lastFullPlan = performance.now();
      // Every device against everyone, heavy at a large site: logged so its cost can be told
      // apart from the pushes'.
      const ms = Math.round(this.lastFullPlan - started);
      ctx.logger.info({ queued: pass.queued, ms, forced: force, stale }, 'sync full plan');
    }
    this.fingerprint = pass.covered.fingerprint;
    this.plannedAt = pass.covered.at;
    return pass.queued;
  }

  /**
   * Runs `fn` every `ms` (sooner when woken) until `signal` aborts; a failure is logged, the
   * next try goes on.
   */
  private async every(ms: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      await this.deps.waker.wait(ms, signal);
      if (signal.aborted) break;
      try {
        await fn();
      } catch (err) {
        this.deps.ctx.logger.warn({ err }, 'sync plan during a run failed');
      }
    }
  }
}

/** The state at which the database was last planned: its fingerprint, read at `at`. */
interface Covered {
  fingerprint: string;
  at: Date;
}

/**
 * One call of `Planner.plan`: the tasks it queued, the devices' plans running beside it, the
 * devices gathered for the next of them, and the state it has covered.
 */
class PlanPass {
  queued = 0;
  failure: { err: unknown } | undefined;
  private readonly devicePlans = new Set<Promise<void>>();
  private gathering: { ids: Set<string>; last: number } | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly fingerprints: FingerprintReader,
    public covered: Covered,
    private readonly afterDevice: (() => Promise<void>) | undefined,
    /** Called when priority work was queued (serving devices then read it ahead). */
    private readonly priorityQueued: () => void,
  ) {}

  /** Everything: every device against everyone. */
  async planAll(): Promise<void> {
    const onQueued = (lane: Lane) => {
      // Serving devices read priority work ahead of what they hold; bulk work (a new device's
      // 100,000 people) waits its turn in their queues. Counting every range of a backfill
      // made each device read a few tasks out of turn five times a second, and those reads
      // took a seventh of the connection while the site was planned.
      if (lane === 'priority') this.priorityQueued();
    };
    const { afterDevice } = this;
    // Read before adding: what a check queued meanwhile is counted too.
    const { queued } = await planSync(this.ctx, { afterDevice, onQueued });
    this.queued += queued;
  }

  /** What changed: the people at once, the devices in a plan of their own beside it. */
  async planChanges(changes: { people: readonly string[]; devices: readonly string[] }) {
    await this.ctx.sync.db.urgent(() => this.planPeople(changes.people));
    this.planDevices(changes.devices);
  }

  /** The check made every REPLAN_CHECK_MS while devices are planned. */
  check(): Promise<void> {
    const { ctx } = this;
    return ctx.sync.db.urgent(async () => {
      const at = ctx.clock.now();
      const next = await this.fingerprints.read(at);
      if (next === this.covered.fingerprint) return;
      const delta = await changesSince(ctx, this.covered.fingerprint, next, this.covered.at);
      // Anything else (a space moved) waits for the full plan after this one; the people
      // edited since are planned now all the same.
      await this.planPeople(
        delta?.people ?? (await peopleUpdatedSince(ctx, this.covered.at)) ?? [],
      );
      if (delta) {
        this.gatherDevices(delta.devices);
        this.covered = { fingerprint: next, at };
      }
    });
  }

  /** Waits for the devices' plans, those started meanwhile included. */
  async settle(): Promise<void> {
    while (this.devicePlans.size > 0) {
      const running = [...this.devicePlans];
      this.devicePlans.clear();
      await Promise.all(running);
    }
  }

  private async planPeople(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const n = (await planSync(this.ctx, { personIds: ids })).queued;
    this.queued += n;
    // People changed one by one: the priority lane (an import's large diff is bulk, and
    // read a little early at worst).
    if (n > 0) this.priorityQueued();
  }

  /**
   * Devices planned on their own, together (their new tasks share statements), in ordinary
   * order (not urgent: a new device's plan is 100,000 rows). Devices registered while one such
   * plan runs get one beside it, not after it: one by one, a site's devices would wait for
   * each other's plans. The pass is done when they are.
   */
  private planDevices(deviceIds: readonly string[]): void {
    if (deviceIds.length === 0) return;
    const { ctx, afterDevice } = this;
    ctx.sync.db.ordinary(() => {
      const onQueued = (lane: Lane) => {
        if (lane === 'priority') this.priorityQueued();
      };
      this.devicePlans.add(
        planSync(ctx, { deviceIds, afterDevice, onQueued })
          .then((result) => void (this.queued += result.queued))
          .catch((err: unknown) => void (this.failure ??= { err })),
      );
    });
  }

  /** Devices seen changed by a check: gathered for DEVICE_GATHER_MS, then planned together. */
  private gatherDevices(deviceIds: readonly string[]): void {
    if (deviceIds.length === 0) return;
    if (this.gathering) {
      for (const id of deviceIds) this.gathering.ids.add(id);
      this.gathering.last = performance.now();
      return;
    }
    const batch = { ids: new Set(deviceIds), last: performance.now() };
    const first = batch.last;
    this.gathering = batch;
    this.devicePlans.add(
      (async () => {
        for (;;) {
          const due = Math.min(batch.last + DEVICE_GATHER_MS, first + DEVICE_GATHER_MAX_MS);
          if (performance.now() >= due) break;
          await sleep(due - performance.now());
        }
        this.gathering = undefined;
        this.planDevices([...batch.ids]);
      })(),
    );
  }
}
