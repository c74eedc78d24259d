import type { ServiceWarning } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { TaskRow } from '../tasks/rows.js';
import { publishSyncState, type SyncLiveEvent } from '../live.js';
import type { FailureParams, Outcome } from './push.js';
import {
  postponeTasks,
  requeueTask,
  writeOutcomeIfUnchanged,
  type Announce,
} from './store/outcomes.js';
import {
  BACKOFF_MAX_MS,
  BACKOFF_MIN_MS,
  MAX_ATTEMPTS,
  RELEASE_PAUSE_MS,
  RELEASED_TASK_PAUSE_MS,
} from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'live' | 'warnings' | 'logger'>;

/** A condition only the operator can fix: in the heartbeat's warnings and the log, once. */
export function warnOnce(
  deps: Pick<AppContext, 'warnings' | 'logger'>,
  warning: ServiceWarning,
): void {
  if (deps.warnings.some((w) => w.message === warning.message)) return;
  deps.warnings.push(warning);
  deps.logger.error(
    { warning: warning.message },
    'sync cannot push to a device from this server process',
  );
}

/** A failure's values as stored (`error_params`): JSON the API hands to clients as it is. */
function paramsJson(params: FailureParams): string {
  return JSON.stringify(params);
}

/** Exponential from 1 s to 5 min, with jitter (half to all of it) so devices do not stampede. */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const full = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(full * (0.5 + random() / 2));
}

/**
 * Writes a push's outcome, but only while the task is still pending and aims at what was
 * pushed (its device's holder pushed it: device-leases.ts); a task the planner changed meanwhile is
 * due again at once so the newer target is pushed next (nothing stale is recorded as success).
 */
export async function recordOutcome(
  deps: Deps,
  task: TaskRow,
  outcome: Outcome,
): Promise<Announce> {
  const change = await writeOutcome(deps, task, outcome);
  // The live stream hears what was written (nothing for a task failed or gone meanwhile),
  // once the caller has settled the task in flight (Announce).
  return () => {
    if (change) publishSyncState(deps, task, change);
  };
}

type Change = Pick<SyncLiveEvent, 'state' | 'attempts' | 'errorCode'> | null;

async function writeOutcome(deps: Deps, task: TaskRow, outcome: Outcome): Promise<Change> {
  const now = deps.clock.now();
  let written = 0;
  let change: Change = null;
  const requeued = (count: number): Change =>
    count > 0 ? { state: 'pending', attempts: task.attempts, errorCode: null } : null;
  switch (outcome.kind) {
    case 'done': {
      const result = {
        resultVersion: outcome.result?.version ?? null,
        resultPhotoSha256: outcome.result?.photoSha256 ?? null,
      };
      written = await writeOutcomeIfUnchanged(deps, task, now, {
        ...result,
        ...(outcome.pushed && {
          personVersion: outcome.pushed.version,
          photoSha256: outcome.pushed.photoSha256,
        }),
        state: 'succeeded',
        errorCode: null,
        errorMessage: null,
        errorParams: null,
        finishedAt: now,
      });
      if (written === 0) {
        // Changed while in flight: keep what the device now holds, push the newer target.
        return requeued(await requeueTask(deps, task, now, now, result));
      }
      return { state: 'succeeded', attempts: task.attempts, errorCode: null };
    }
    case 'retry': {
      const attempts = task.attempts + 1;
      // A local cause is this process's to fix, not the task's: retried (backing off) for good.
      if (outcome.local) warnOnce(deps, outcome.local.warning);
      const last = attempts >= MAX_ATTEMPTS && !outcome.local;
      written = await writeOutcomeIfUnchanged(deps, task, now, {
        attempts,
        state: last ? 'failed' : 'pending',
        nextAttemptAt: new Date(now.getTime() + (last ? 0 : backoffMs(attempts))),
        errorCode: outcome.code.slice(0, 32),
        errorMessage: (last
          ? `Gave up after ${attempts} attempts: ${outcome.message}`
          : outcome.local
            ? `Attempt ${attempts} failed, trying again: ${outcome.message}`
            : `Attempt ${attempts} of ${MAX_ATTEMPTS} failed, trying again: ${outcome.message}`
        ).slice(0, 512),
        errorParams: paramsJson({
          ...outcome.params,
          ...(outcome.local ? { attempt: attempts } : { attempt: attempts, of: MAX_ATTEMPTS }),
          ...(last && { gaveUp: 1 }),
        }),
        finishedAt: last ? now : null,
      });
      change = {
        state: last ? 'failed' : 'pending',
        attempts,
        errorCode: outcome.code.slice(0, 32),
      };
      break;
    }
    case 'fail': {
      const attempts = outcome.burn ? task.attempts + 1 : task.attempts;
      written = await writeOutcomeIfUnchanged(deps, task, now, {
        attempts,
        state: 'failed',
        errorCode: outcome.code.slice(0, 32),
        errorMessage: outcome.message.slice(0, 512),
        errorParams: outcome.params ? paramsJson(outcome.params) : null,
        finishedAt: now,
      });
      change = { state: 'failed', attempts, errorCode: outcome.code.slice(0, 32) };
      break;
    }
    case 'release':
      // The planner decides what the task becomes; a short pause keeps this from spinning.
      return requeued(
        await requeueTask(deps, task, now, new Date(now.getTime() + RELEASED_TASK_PAUSE_MS)),
      );
  }
  // Changed while in flight: due again at once, so the newer target is pushed next.
  if (written === 0) return requeued(await requeueTask(deps, task, now, now));
  return change;
}

/**
 * Tasks read to push but not tried (their device stopped answering mid-stream): due again
 * after `pauseMs`, no attempt counted — the tasks that were tried carry the failure and its
 * backoff.
 */
export async function releaseTasks(
  deps: Deps,
  tasks: readonly TaskRow[],
  pauseMs = RELEASE_PAUSE_MS,
): Promise<void> {
  if (tasks.length === 0) return;
  const now = deps.clock.now();
  await postponeTasks(deps, tasks, now, new Date(now.getTime() + pauseMs));
}
