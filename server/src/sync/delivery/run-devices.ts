import { WarningCode } from '@svc/shared';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../platform/context.js';
import { readDueTasks } from './store/due.js';
import { devicesWithDueWork } from '../tasks/store.js';
import { countHeld, readDevice } from './store/devices.js';
import { asError } from './success-writer.js';
import { recordOutcome, warnOnce } from './failures.js';
import { streamDevice, type RunShared, type StreamResult } from './stream.js';
import { KEY_FAILURE_BATCH } from '../knobs.js';
import type { DeviceRun } from './push.js';
import { DeviceKeyUnavailable, deviceTarget, isOnline } from '../../devices/service.js';

export interface RunDevicesDeps {
  ctx: AppContext;
  shared: RunShared;
  /** Devices served at the same time. */
  parallel: number;
  /** How long a device whose stream stalled, or found nothing to read, rests. */
  restMs: number;
}

/**
 * The devices one worker run serves: which are being served, which rest, what they pushed and
 * the first failure. `serveDue` starts every online device with due work that is not served
 * yet; the run's loop, its plans and every stream that ends ask for it.
 */
export class RunDevices {
  readonly serving = new Map<string, Promise<void>>();
  /** Devices whose stream stalled (kept failing) or found nothing to read rest a moment
   * before they are served again, rather than being read for in a tight loop. */
  private readonly resting = new Map<string, number>();
  pushed = 0;
  failure: Error | undefined;
  private looking: Promise<void> | undefined;
  private lookAgain = false;

  constructor(private readonly deps: RunDevicesDeps) {}

  fail(err: unknown): void {
    this.failure ??= asError(err);
  }

  /**
   * One look for due work at a time: asks that come while one runs are answered by one more
   * look after it (a query per ask cost MariaDB a core's share during a backfill).
   */
  readonly serveDue = (): Promise<void> => {
    if (this.looking) {
      this.lookAgain = true;
      return this.looking;
    }
    this.looking = (async () => {
      do {
        this.lookAgain = false;
        await this.startDue();
      } while (this.lookAgain);
    })().finally(() => (this.looking = undefined));
    return this.looking;
  };

  /** Resolves once every device served has finished. */
  async drain(): Promise<void> {
    while (this.serving.size > 0) await Promise.all([...this.serving.values()]);
  }

  private async startDue(): Promise<void> {
    const { ctx, shared } = this.deps;
    if (performance.now() >= shared.deadline || shared.stopping.aborted) return;
    const due = await ctx.sync.db.urgent(() =>
      devicesWithDueWork(ctx, ctx.clock.now(), ctx.config.heartbeatTimeoutS),
    );
    for (const id of due) {
      if (this.serving.has(id) || this.serving.size >= this.deps.parallel) continue;
      if ((this.resting.get(id) ?? 0) > performance.now()) continue;
      const done = serveDevice(ctx, id, shared)
        .then((r) => {
          this.pushed += r.pushed;
          if (r.stalled || r.pushed === 0) {
            this.resting.set(id, performance.now() + this.deps.restMs);
          }
        })
        .catch((err: unknown) => this.fail(err))
        .finally(() => this.serving.delete(id));
      this.serving.set(id, done);
    }
  }
}

/** Serves one device: its stream until its work or its budget ends. */
async function serveDevice(
  ctx: AppContext,
  deviceId: string,
  shared: RunShared,
): Promise<StreamResult> {
  const idle = { pushed: 0, stalled: false };
  const device = await readDevice(ctx, deviceId);
  if (!device || !isOnline(device, ctx.clock.now(), ctx.config.heartbeatTimeoutS)) return idle;
  let run: DeviceRun;
  try {
    run = {
      device,
      target: await deviceTarget(ctx, device),
      // Only the capacity check reads it; counting 100,000 rows per run costs.
      held: device.capacity === null ? 0 : await countHeld(ctx, deviceId),
      reads: shared.reads,
    };
  } catch (err) {
    if (!(err instanceof DeviceKeyUnavailable)) throw err;
    if (err.local) {
      // This process's setup cannot open the key; another process (sharing the database, with
      // the right files) may: the tasks stay pending, and this process says so loudly.
      warnOnce(ctx, {
        code: WarningCode.deviceKeyUnopenableHere,
        params: { sn: device.sn },
        message: `device ${device.sn}: ${err.message}`,
      });
      return idle;
    }
    // Without its key nothing reaches the device: say so on every task instead of retrying.
    if (!(await shared.leases.acquire(deviceId))) return idle;
    const failed = await readDueTasks(ctx, deviceId, KEY_FAILURE_BATCH, ctx.clock.now());
    for (const task of failed) {
      // Read without taking them in flight: told at once.
      const announce = await recordOutcome(ctx, task, {
        kind: 'fail',
        code: 'device_key_unavailable',
        message: err.message,
        params: { detail: 'key_unavailable', sn: device.sn },
        burn: false,
      });
      announce();
    }
    return idle;
  }
  return streamDevice(shared, run);
}
