import { panelFailureText, panelRoute } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/registry.js';
import { SettingKey } from '../../settings/runtime-settings.js';
import { laneLease, DELIVERY_LEASE_MS, type LaneLease } from './lease.js';
import { pipelinedPanelTransport, type PanelTransport } from './panel-client.js';
import { recordFailedTry, type FailedTry } from '../store/failures.js';
import { toEventOut, toPanelEvent } from '../events/records.js';
import type { EventRecord } from '../store/events.js';
import { anyPending, pendingHead, settleRows, type OutboxChanges } from '../store/outbox.js';

/**
 * How long an event keeps being offered to the panel (counted from its arrival here) before it
 * is given up as 'expired'. A constant for now (the "configurable" is met in code).
 */
export const DELIVERY_EXPIRY_MS = 24 * 60 * 60_000;
export const DELIVERY_POLL_MS = 1_000;
export const DELIVERY_TIMEOUT_MS = 5_000;
export const DELIVERY_BASE_DELAY_MS = 1_000;
export const DELIVERY_MAX_DELAY_MS = 60_000;
/** Events read and POSTed (pipelined) per round; the panel sees them in this order. */
export const DELIVERY_BATCH = 256;
/** The one lane today: every organization's events go to the one panel route, in time order. */
export const PANEL_LANE = 'panel';
const MAX_ERROR = 512;

export interface DeliveryOptions {
  pollMs?: number;
  timeoutMs?: number;
  expiryMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  batch?: number;
  leaseMs?: number;
  /** The lease holder's name (tests tell two workers apart); default pid + random. */
  owner?: string;
  transport?: PanelTransport;
}

/** Exponential backoff with jitter (half fixed, half random), capped. */
export function retryDelay(
  attempts: number,
  opts: { baseDelayMs: number; maxDelayMs: number; random: () => number },
): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + (exp / 2) * opts.random());
}

type Changes = OutboxChanges;

/**
 * PROTOCOL §4 through a durable outbox: the state lives in recognition_events, so a restart
 * loses nothing. Events go oldest event time first: while the oldest pending event fails, later
 * ones wait behind it, so the panel sees them in order. Across server processes a lease on the
 * lane (lease.ts) lets one process at a time send, so each event is POSTed by one process and
 * the order holds; a process that dies holding it is replaced when the lease expires. Delivery
 * is at least once: a crash (or a lost lease) between the panel's 2xx and our update sends
 * those events again.
 *
 * Per round, up to DELIVERY_BATCH due events are read in one query, POSTed pipelined on one
 * connection (panel-client.ts) and settled in one UPDATE, instead of a read, a POST round trip
 * and an update per event.
 */
export class PanelDelivery implements Job {
  readonly name = 'panel-delivery';
  private readonly opts: Required<Omit<DeliveryOptions, 'owner' | 'transport'>>;
  private readonly transport: PanelTransport;
  readonly lease: LaneLease;
  /** Until when (our clock) the lease is ours without renewing it; 0 = not held. */
  private heldUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly ctx: AppContext,
    opts: DeliveryOptions = {},
  ) {
    this.opts = {
      pollMs: opts.pollMs ?? DELIVERY_POLL_MS,
      timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      expiryMs: opts.expiryMs ?? DELIVERY_EXPIRY_MS,
      baseDelayMs: opts.baseDelayMs ?? DELIVERY_BASE_DELAY_MS,
      maxDelayMs: opts.maxDelayMs ?? DELIVERY_MAX_DELAY_MS,
      random: opts.random ?? Math.random,
      batch: opts.batch ?? DELIVERY_BATCH,
      leaseMs: opts.leaseMs ?? DELIVERY_LEASE_MS,
    };
    this.transport = opts.transport ?? pipelinedPanelTransport({ timeoutMs: this.opts.timeoutMs });
    this.lease = laneLease({ sequelize: ctx.db.sequelize, clock: ctx.clock }, PANEL_LANE, {
      ttlMs: this.opts.leaseMs,
      ...(opts.owner !== undefined && { owner: opts.owner }),
    });
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.transport.close();
    await this.running;
    await this.letGo().catch((err: unknown) =>
      this.ctx.logger.warn({ job: this.name, err }, 'panel delivery lease not released'),
    );
  }

  /** Runs a pass now (new work arrived, or a test moved the clock). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Runs one pass now and resolves when it is over (tests; a caller that needs it done). */
  async runNow(): Promise<void> {
    await this.idle();
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.tick();
    await this.idle();
  }

  /** Resolves when the pass in progress (if any) has finished. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms).unref();
  }

  private tick(): void {
    if (this.stopped || this.running) return;
    this.again = false;
    this.running = this.pass()
      .catch((err: unknown) =>
        this.ctx.logger.warn({ job: this.name, err }, 'panel delivery failed'),
      )
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.again ? 0 : this.opts.pollMs);
      });
  }

  /** Delivers from the head of the queue until it is empty or the head has to wait. */
  private async pass(): Promise<void> {
    const { settings } = this.ctx;
    // Idle polls cost one indexed read, not a write on the lease.
    if (!this.heldUntil && !(await anyPending(this.ctx.db.sequelize))) return;
    const url = (await settings.get(SettingKey.panelRoute, panelRoute))?.url ?? '';
    let done = false;
    try {
      while (!this.stopped && !done) {
        if (!(await this.hold())) return;
        done = await this.round(url);
      }
    } finally {
      // Waiting (backoff, no route, empty queue) or stopping: another process may go on.
      if (done || this.stopped) await this.letGo();
    }
  }

  /** Takes or renews the lease when less than half of it is left; false: another has it. */
  private async hold(): Promise<boolean> {
    const now = this.ctx.clock.now().getTime();
    if (now < this.heldUntil - this.opts.leaseMs / 2) return true;
    if (!(await this.lease.acquire())) {
      this.heldUntil = 0;
      return false;
    }
    this.heldUntil = now + this.opts.leaseMs;
    return true;
  }

  private async letGo(): Promise<void> {
    if (!this.heldUntil) return;
    this.heldUntil = 0;
    await this.lease.release();
  }

  /** One batch from the head; true when the pass should end (empty, or the head waits). */
  private async round(url: string): Promise<boolean> {
    const { clock } = this.ctx;
    const rows = await pendingHead(this.ctx.db.sequelize, this.opts.batch);
    if (rows.length === 0) return true;
    const now = clock.now();
    const expired: EventRecord[] = [];
    const due: EventRecord[] = [];
    let blocked = false;
    for (const row of rows) {
      if (now.getTime() - row.receivedAt.getTime() >= this.opts.expiryMs) {
        expired.push(row);
        continue;
      }
      // Without a route the events wait (until one is set, or they expire).
      if (!url || (row.nextDeliveryAt && row.nextDeliveryAt > now)) {
        blocked = true;
        break;
      }
      // An event that failed before goes alone until the panel takes it: a panel that is coming
      // back gets one event at a time, in order.
      if (row.deliveryAttempts > 0 && due.length > 0) break;
      due.push(row);
      if (row.deliveryAttempts > 0) break;
    }
    for (const row of expired) {
      await this.settle([row], {
        deliveryState: 'expired',
        nextDeliveryAt: null,
        deliveryError: row.deliveryError ?? panelFailureText.neverSent,
      });
    }
    if (due.length === 0) return blocked || expired.length === 0;
    const results = await this.transport.post(
      url,
      due.map((row) => JSON.stringify(toPanelEvent(row))),
    );
    if (this.stopped && results.every((r) => r !== undefined)) return true;
    const delivered = due.filter((_, i) => results[i] === undefined);
    const failedAt = results.findIndex((r) => r !== undefined);
    await this.settle(delivered, {
      deliveryState: 'delivered',
      deliveredAt: clock.now(),
      nextDeliveryAt: null,
      deliveryError: null,
    });
    if (failedAt < 0) return blocked;
    // The first failure is the head now; later events wait behind it (those the panel took
    // anyway are delivered: they were shown).
    const head = due[failedAt]!;
    const failure = results[failedAt]!;
    const attempts = head.deliveryAttempts + 1;
    const error = failure.slice(0, MAX_ERROR);
    await this.settle(
      [head],
      {
        deliveryAttempts: attempts,
        nextDeliveryAt: new Date(clock.now().getTime() + retryDelay(attempts, this.opts)),
        deliveryError: error,
      },
      () => this.logFailedTry({ eventId: head.id, attempt: attempts, at: clock.now(), error }),
    );
    this.ctx.logger.debug(
      { eventId: head.eventId, attempts, error: failure },
      'panel delivery will be retried',
    );
    return true;
  }

  /**
   * The failed try's line in the event's delivery history. Right after the settle's UPDATE and
   * before its stream message, so a page refreshed by the message finds it. The history is a
   * record, not the queue's state: failing to write it must not stop delivery.
   */
  private async logFailedTry(failed: FailedTry): Promise<void> {
    await recordFailedTry(this.ctx.db.sequelize, failed).catch((err: unknown) =>
      this.ctx.logger.warn(
        { job: this.name, err, eventId: failed.eventId },
        'failed try not logged',
      ),
    );
  }

  /**
   * One UPDATE for the rows (only while still pending: a purge may have moved them on), then
   * `written` (if any), then a `delivery` stream message per row.
   */
  private async settle(
    rows: EventRecord[],
    changes: Changes,
    written?: () => Promise<void>,
  ): Promise<void> {
    if (rows.length === 0) return;
    const counted = changes.deliveryState === 'delivered';
    await settleRows(
      this.ctx.db.sequelize,
      rows.map((r) => r.id),
      changes,
      counted,
    );
    await written?.();
    const hub = this.ctx.live;
    for (const row of rows) {
      Object.assign(row, changes, counted && { deliveryAttempts: row.deliveryAttempts + 1 });
      hub.publish({
        organizationId: row.organizationId,
        event: 'delivery',
        data: { id: row.id, delivery: toEventOut(row).delivery },
      });
    }
  }
}
