import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.js';
import { asUrgent } from '../../db/urgency.js';
import type { TaskRow } from './store/due.js';
import type { DeviceClient } from '../../devices/service.js';
import { readDueTasks, type ReadCursor } from './store/due.js';
import type { InFlight } from './inflight.js';
import type { DeviceLeases } from './device-leases.js';
import { pushTask, type DeviceRun, type Outcome } from './push.js';
import type { RunReads } from './run-reads.js';
import { recordOutcome, releaseTasks } from './failures.js';
import { asError, type SuccessRecorder } from './success-writer.js';
import { READ_PER_PUSH } from '../knobs.js';

/** What every device of one worker run shares. */
export interface RunShared {
  ctx: AppContext;
  client: DeviceClient;
  reads: RunReads;
  recorder: SuccessRecorder;
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
  planEpoch(): number;
}

export interface StreamResult {
  pushed: number;
  /** Ended because the device kept failing, not because its work ran out. */
  stalled: boolean;
}

/**
 * Pushes one device's due tasks as one continuous stream: `perDevice` pushes always in flight,
 * the next read made while the current one is still being pushed, successes handed to the
 * run's recorder (written together with other devices') instead of awaited, so the device
 * never waits for the database between reads. Work the planner queues meanwhile (one person
 * edited during a backfill) is read at once and pushed ahead of the queue, and its success
 * written without delay.
 */
export async function streamDevice(shared: RunShared, run: DeviceRun): Promise<StreamResult> {
  const { ctx, perDevice } = shared;
  const until = Math.min(shared.deadline, performance.now() + shared.streamMs);
  const deviceId = run.device.id;
  const batch = perDevice * READ_PER_PUSH;
  const queue: TaskRow[] = [];
  const urgentIds = new Set<string>();
  let exhausted = false;
  let refilling: Promise<void> | undefined;
  let failure: Error | undefined;
  let seen = shared.planEpoch();
  let pushed = 0;
  // Failed attempts in a row: a device that stops answering is not handed its whole queue.
  let failingInARow = 0;
  const stallAfter = perDevice * 2;
  // Another process pushes to this device: it is served again once that one lets it go.
  if (!(await shared.leases.acquire(deviceId))) return { pushed: 0, stalled: false };
  const { inFlight } = shared;
  const cursor: ReadCursor = {};

  const readDue = async (limit: number, urgent: boolean) => {
    // Not in flight, nor settled while the read ran (its row may predate its outcome).
    const tasks = await inFlight.readFresh((skip) =>
      readDueTasks(ctx, deviceId, limit, ctx.clock.now(), { cursor, skip }),
    );
    try {
      await shared.reads.prefetch(tasks);
    } catch (err) {
      // Read but not pushed: still pending, read again by the device's next stream.
      for (const t of tasks) inFlight.settle(t.id);
      throw err;
    }
    if (urgent) for (const t of tasks) urgentIds.add(t.id);
    return tasks;
  };
  const refill = () => {
    refilling ??= (async () => {
      try {
        // No further ahead of the success writes than the recorder allows.
        await shared.recorder.room();
        const tasks = await readDue(batch, false);
        queue.push(...tasks);
        if (tasks.length === 0) exhausted = true;
      } catch (err) {
        failure ??= asError(err);
        exhausted = true;
      }
    })().finally(() => (refilling = undefined));
    return refilling;
  };

  const lane = async () => {
    for (;;) {
      if (failingInARow >= stallAfter || shared.stopping.aborted) break;
      if (shared.planEpoch() !== seen && !failure) {
        // New work was planned: read it (the priority lane comes first) ahead of the queue,
        // without waiting for a bulk read in flight (that one queues behind bulk statements).
        seen = shared.planEpoch();
        try {
          queue.unshift(...(await asUrgent(() => readDue(perDevice, true))));
          exhausted = false;
        } catch (err) {
          failure ??= asError(err);
          exhausted = true;
        }
      }
      if (shared.stopping.aborted) break;
      if (!exhausted && queue.length < batch / 2 && performance.now() < until) {
        void refill();
      }
      const task = queue.shift();
      if (!task) {
        if (refilling) {
          await refilling;
          continue;
        }
        break;
      }
      pushed++;
      const outcome = await pushOne(shared, run, task);
      const urgent = urgentIds.delete(task.id);
      if (outcome.kind === 'done') {
        failingInARow = 0;
        shared.recorder.add({ task, outcome }, urgent || task.lane === 'priority');
        continue;
      }
      if (outcome.kind === 'retry') failingInARow++;
      let announce: (() => void) | undefined;
      try {
        announce = await recordOutcome(ctx, task, outcome);
      } catch (err) {
        // Not written: the task is still pending, and pushed again by a later stream.
        failure ??= asError(err);
        exhausted = true;
      } finally {
        inFlight.settle(task.id);
      }
      announce?.();
    }
  };
  await Promise.all(Array.from({ length: perDevice }, lane));
  if (refilling) await refilling;
  if (queue.length > 0) {
    // The device stopped answering, or the worker is stopping: what was not tried is still
    // pending, attempts unchanged; due at once after a stop (nothing is wrong with the device),
    // after a pause when the device stalled.
    const untried = queue.splice(0);
    try {
      if (!shared.stopping.aborted) await releaseTasks(ctx, untried);
    } catch (err) {
      failure ??= asError(err);
    } finally {
      for (const t of untried) inFlight.settle(t.id);
    }
  }
  if (failure !== undefined) throw failure;
  return { pushed, stalled: failingInARow >= stallAfter };
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
    };
  }
}
