import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import { periodicDue } from '../worker/periodic-due.js';
import { asOrdinary, asUrgent } from '../../db/urgency.js';
import { changesSince, planSync } from './full-plan.js';
import { peopleUpdatedSince } from './store/desired.js';
import { FingerprintReader } from './fingerprint.js';
import type { Lane } from './store/tasks.js';
import type { Waker } from '../worker/wake-signal.js';
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
   * Raised whenever a plan queued priority work: serving devices then read it ahead of their
   * batch.
   */
  epoch = 0;
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
    // The checks and a plan of a few people go ahead of a backfill's statements (urgency.ts).
    const fingerprint = await asUrgent(() => this.fingerprints.read(now));
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
        : await asUrgent(() => changesSince(ctx, this.fingerprint!, fingerprint, this.plannedAt!));
    let covered = { fingerprint, at: now };
    let queued = 0;
    // Serving devices read priority work ahead of what they hold; bulk work (a new device's
    // 100,000 people) waits its turn in their queues. Raising the epoch for every range of a
    // backfill made each device read a few tasks out of turn five times a second, and those
    // reads took a seventh of the connection while the site was planned.
    const onQueued = (lane: Lane) => {
      if (lane === 'priority') this.epoch++;
    };
    // Devices planned on their own, together (their new tasks share statements), in ordinary
    // order (not urgent: a new device's plan is 100,000 rows). Devices registered while one
    // such plan runs get one beside it, not after it: one by one, a site's devices would wait
    // for each other's plans. This plan is done when they are.
    let failure: { err: unknown } | undefined;
    const devicePlans = new Set<Promise<void>>();
    const planDevices = (deviceIds: readonly string[]) => {
      if (deviceIds.length === 0) return;
      asOrdinary(() => {
        devicePlans.add(
          planSync(ctx, { deviceIds, afterDevice, onQueued })
            .then((result) => void (queued += result.queued))
            .catch((err: unknown) => void (failure ??= { err })),
        );
      });
    };
    let gathering: { ids: Set<string>; last: number } | undefined;
    const gatherDevices = (deviceIds: readonly string[]) => {
      if (deviceIds.length === 0) return;
      if (gathering) {
        for (const id of deviceIds) gathering.ids.add(id);
        gathering.last = performance.now();
        return;
      }
      const batch = { ids: new Set(deviceIds), last: performance.now() };
      const first = batch.last;
      gathering = batch;
      devicePlans.add(
        (async () => {
          for (;;) {
            const due = Math.min(batch.last + DEVICE_GATHER_MS, first + DEVICE_GATHER_MAX_MS);
            if (performance.now() >= due) break;
            await sleep(due - performance.now());
          }
          gathering = undefined;
          planDevices([...batch.ids]);
        })(),
      );
    };
    const planPeople = async (ids: readonly string[]) => {
      if (ids.length === 0) return;
      const n = (await planSync(ctx, { personIds: ids })).queued;
      queued += n;
      // People changed one by one: the priority lane (an import's large diff is bulk, and
      // read a little early at worst).
      if (n > 0) this.epoch++;
    };
    const check = () =>
      asUrgent(async () => {
        const at = ctx.clock.now();
        const next = await this.fingerprints.read(at);
        if (next === covered.fingerprint) return;
        const delta = await changesSince(ctx, covered.fingerprint, next, covered.at);
        // Anything else (a space moved) waits for the full plan after this one; the people
        // edited since are planned now all the same.
        await planPeople(delta?.people ?? (await peopleUpdatedSince(ctx, covered.at)) ?? []);
        if (delta) {
          gatherDevices(delta.devices);
          covered = { fingerprint: next, at };
        }
      });
    const watching = new AbortController();
    const watcher =
      changes && changes.devices.length === 0
        ? Promise.resolve()
        : this.every(REPLAN_CHECK_MS, watching.signal, check);
    try {
      if (changes) {
        await asUrgent(() => planPeople(changes.people));
        planDevices(changes.devices);
      } else {
        queued += (await planSync(ctx, { afterDevice, onQueued })).queued;
      }
    } finally {
      // The devices' plans end while changes are still watched for (a check may add one).
      const settle = async () => {
        while (devicePlans.size > 0) {
          const running = [...devicePlans];
          devicePlans.clear();
          await Promise.all(running);
        }
      };
      await settle();
      watching.abort();
      await watcher;
      await settle();
    }
    if (failure) throw failure.err;
    if (!changes) {
      this.lastFullPlan = performance.now();
      // Every device against everyone, heavy at a large site: logged so its cost can be told
      // apart from the pushes'.
      const ms = Math.round(this.lastFullPlan - started);
      ctx.logger.info({ queued, ms, forced: force, stale }, 'sync full plan');
    }
    this.fingerprint = covered.fingerprint;
    this.plannedAt = covered.at;
    return queued;
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
