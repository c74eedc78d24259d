import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../platform/context.js';
import type { ReadCursor, TaskRow } from '../tasks/rows.js';
import type { DeviceClient } from '../../devices/service.js';
import { readDueTasks } from './store/due.js';
import type { InFlight } from './inflight.js';
import type { DeviceLeases } from './device-leases.js';
import { pushTask, type DeviceRun, type Outcome } from './push.js';
import type { RunReads } from './run-reads.js';
import { recordOutcome, releaseTasks } from './failures.js';
import { asError, type SuccessWriter } from './success-writer.js';
import { READ_PER_PUSH } from '../knobs.js';

/** What every device of one worker run shares. */
export interface RunShared {
  ctx: AppContext;
  client: DeviceClient;
  reads: RunReads;
  successes: SuccessWriter;
  leases: DeviceLeases;
  inFlight: InFlight;
  /** Pushes in flight per device. */
  perDevice: number;
  /** No new reads after this (performance.now()); what was read is still pushed. */
  deadline: number;
  /**
   * Aborted when the worker stops (SIGTERM): no new reads, no new pushes; the pushes in flight
   * end and are recorded, and what was read but not tried is still pending and due.
   */
  stopping: AbortSignal;
  /**
   * A device's stream reads for this long, then ends once what it read is pushed; the worker
   * serves the device again with its row (address, key) read anew. Per device, so the devices
   * do not all wait for the slowest one to drain before any of them goes on.
   */
  streamMs: number;
  /** Changes whenever the planner queued priority work; the device reads it ahead of its queue. */
  priorityPlans(): number;
}

export interface StreamResult {
  pushed: number;
  /** Ended because the device kept failing, not because its work ran out. */
  stalled: boolean;
}

/**
 * Pushes one device's due tasks as one continuous stream: `perDevice` pushes always in flight,
 * the next read made while the current one is still being pushed, successes handed to the
 * run's success writer (written together with other devices') instead of awaited, so the device
 * never waits for the database between reads. Work the planner queues meanwhile (one person
 * edited during a backfill) is read at once and pushed ahead of the queue, and its success
 * written without delay.
 */
export async function streamDevice(shared: RunShared, run: DeviceRun): Promise<StreamResult> {
  const stream = new DeviceStream(shared, run);
  // Another process pushes to this device: it is served again once that one lets it go.
  if (!(await shared.leases.acquire(run.device.id))) return { pushed: 0, stalled: false };
  return stream.run();
}

/** One device's stream: its queue of read tasks, its reads, its lanes of pushes. */
class DeviceStream {
  private readonly until: number;
  private readonly batch: number;
  /** Failed attempts in a row after which the stream ends: a dead device is not handed all. */
  private readonly stallAfter: number;
  private readonly queue: TaskRow[] = [];
  /** Tasks read as priority work the planner just queued: their successes are written at once. */
  private readonly urgentIds = new Set<string>();
  private readonly cursor: ReadCursor = {};
  private exhausted = false;
  private refilling: Promise<void> | undefined;
  private failure: Error | undefined;
  private seen: number;
  private pushed = 0;
  private failingInARow = 0;

  constructor(
    private readonly shared: RunShared,
    private readonly device: DeviceRun,
  ) {
    this.until = Math.min(shared.deadline, performance.now() + shared.streamMs);
    this.batch = shared.perDevice * READ_PER_PUSH;
    this.stallAfter = shared.perDevice * 2;
    this.seen = shared.priorityPlans();
  }

  async run(): Promise<StreamResult> {
    const lanes = Array.from({ length: this.shared.perDevice }, () => this.lane());
    await Promise.all(lanes);
    if (this.refilling) await this.refilling;
    await this.releaseUntried();
    if (this.failure !== undefined) throw this.failure;
    return { pushed: this.pushed, stalled: this.failingInARow >= this.stallAfter };
  }

  /** One of `perDevice` loops, each with one push in flight. */
  private async lane(): Promise<void> {
    const { shared } = this;
    for (;;) {
      if (this.failingInARow >= this.stallAfter || shared.stopping.aborted) break;
      if (shared.priorityPlans() !== this.seen && !this.failure) await this.readPlannedWork();
      if (shared.stopping.aborted) break;
      if (!this.exhausted && this.queue.length < this.batch / 2 && performance.now() < this.until) {
        void this.refill();
      }
      const task = this.queue.shift();
      if (!task) {
        if (this.refilling) {
          await this.refilling;
          continue;
        }
        break;
      }
      this.pushed++;
      await this.settle(task, await pushOne(shared, this.device, task));
    }
  }

  /**
   * New work was planned: read it (the priority lane comes first) ahead of the queue, without
   * waiting for a bulk read in flight (that one queues behind bulk statements).
   */
  private async readPlannedWork(): Promise<void> {
    const { shared } = this;
    this.seen = shared.priorityPlans();
    try {
      const tasks = await shared.ctx.sync.db.urgent(() => this.readDue(shared.perDevice, true));
      this.queue.unshift(...tasks);
      this.exhausted = false;
    } catch (err) {
      this.failure ??= asError(err);
      this.exhausted = true;
    }
  }

  /** The next batch behind the queue, one read at a time. */
  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      try {
        // No further ahead of the success writes than the success writer allows.
        await this.shared.successes.room();
        const tasks = await this.readDue(this.batch, false);
        this.queue.push(...tasks);
        if (tasks.length === 0) this.exhausted = true;
      } catch (err) {
        this.failure ??= asError(err);
        this.exhausted = true;
      }
    })().finally(() => (this.refilling = undefined));
    return this.refilling;
  }

  private async readDue(limit: number, urgent: boolean): Promise<TaskRow[]> {
    const { ctx, inFlight, reads } = this.shared;
    const { cursor } = this;
    // Not in flight, nor settled while the read ran (its row may predate its outcome).
    const tasks = await inFlight.readFresh((skip) =>
      readDueTasks(ctx, this.device.device.id, limit, ctx.clock.now(), { cursor, skip }),
    );
    try {
      await reads.prefetch(tasks);
    } catch (err) {
      // Read but not pushed: still pending, read again by the device's next stream.
      for (const t of tasks) inFlight.settle(t.id);
      throw err;
    }
    if (urgent) for (const t of tasks) this.urgentIds.add(t.id);
    return tasks;
  }

  /** A success to the success writer; any other outcome written now. */
  private async settle(task: TaskRow, outcome: Outcome): Promise<void> {
    const { shared } = this;
    const urgent = this.urgentIds.delete(task.id);
    if (outcome.kind === 'done') {
      this.failingInARow = 0;
      shared.successes.add({ task, outcome }, urgent || task.lane === 'priority');
      return;
    }
    if (outcome.kind === 'retry') this.failingInARow++;
    let announce: (() => void) | undefined;
    try {
      announce = await recordOutcome(shared.ctx, task, outcome);
    } catch (err) {
      // Not written: the task is still pending, and pushed again by a later stream.
      this.failure ??= asError(err);
      this.exhausted = true;
    } finally {
      shared.inFlight.settle(task.id);
    }
    announce?.();
  }

  /**
   * The device stopped answering, or the worker is stopping: what was not tried is still
   * pending, attempts unchanged; due at once after a stop (nothing is wrong with the device),
   * after a pause when the device stalled.
   */
  private async releaseUntried(): Promise<void> {
    if (this.queue.length === 0) return;
    const { shared } = this;
    const untried = this.queue.splice(0);
    try {
      if (!shared.stopping.aborted) await releaseTasks(shared.ctx, untried);
    } catch (err) {
      this.failure ??= asError(err);
    } finally {
      for (const t of untried) shared.inFlight.settle(t.id);
    }
  }
}

async function pushOne(shared: RunShared, run: DeviceRun, task: TaskRow): Promise<Outcome> {
  try {
    return await pushTask(shared.ctx, shared.client, run, task);
  } catch (err) {
    shared.ctx.logger.error({ err, task: task.id }, 'sync push failed unexpectedly');
    return {
      kind: 'retry',
      code: 'internal',
      message: 'An internal error stopped the push; see the service log.',
      params: { detail: 'internal' },
    };
  }
}
