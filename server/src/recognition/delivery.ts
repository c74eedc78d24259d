import { panelRoute } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { RecognitionEventRow } from '../db/business-models.js';
import type { Job } from '../jobs/registry.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { liveHub } from './hub.js';
import { toEventOut, toPanelEvent } from './records.js';

/**
 * How long an event keeps being offered to the panel (counted from its arrival here) before it
 * is given up as 'expired'. A constant for now (the "configurable" is met in code).
 */
export const DELIVERY_EXPIRY_MS = 24 * 60 * 60_000;
export const DELIVERY_POLL_MS = 1_000;
export const DELIVERY_TIMEOUT_MS = 5_000;
export const DELIVERY_BASE_DELAY_MS = 1_000;
export const DELIVERY_MAX_DELAY_MS = 60_000;
const MAX_ERROR = 512;

export interface DeliveryOptions {
  pollMs?: number;
  timeoutMs?: number;
  expiryMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  fetch?: typeof fetch;
}

/** Exponential backoff with jitter (half fixed, half random), capped. */
export function retryDelay(
  attempts: number,
  opts: { baseDelayMs: number; maxDelayMs: number; random: () => number },
): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + (exp / 2) * opts.random());
}

/**
 * PROTOCOL §4 through a durable outbox: the state lives in recognition_events, so a restart
 * loses nothing. Events go one at a time, oldest event time first: while the oldest pending
 * event fails, later ones wait behind it, so the panel sees them in order. Delivery is at least
 * once (a crash between the panel's 2xx and our update sends that event again); two server
 * processes both running this job may each send an event (no claim between processes yet).
 */
export class PanelDelivery implements Job {
  readonly name = 'panel-delivery';
  private readonly opts: Required<DeliveryOptions>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private inFlight: AbortController | undefined;

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
      fetch: opts.fetch ?? fetch,
    };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.inFlight?.abort();
    await this.running;
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
    const { models, clock, settings } = this.ctx;
    const url = (await settings.get(SettingKey.panelRoute, panelRoute))?.url ?? '';
    while (!this.stopped) {
      const head = await models.RecognitionEvent.findOne({
        where: { deliveryState: 'pending' },
        order: [
          ['time', 'ASC'],
          ['receivedAt', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      if (!head) return;
      const now = clock.now();
      if (now.getTime() - head.receivedAt.getTime() >= this.opts.expiryMs) {
        await this.settle(head, {
          deliveryState: 'expired',
          nextDeliveryAt: null,
          deliveryError: head.deliveryError ?? 'never sent: no panel route was reachable in time',
        });
        continue;
      }
      // Without a route the events wait (until one is set, or they expire).
      if (!url) return;
      if (head.nextDeliveryAt && head.nextDeliveryAt > now) return;
      const failure = await this.post(url, head);
      if (failure === undefined) {
        await this.settle(head, {
          deliveryState: 'delivered',
          deliveryAttempts: head.deliveryAttempts + 1,
          deliveredAt: clock.now(),
          nextDeliveryAt: null,
          deliveryError: null,
        });
        continue;
      }
      const attempts = head.deliveryAttempts + 1;
      await this.settle(head, {
        deliveryAttempts: attempts,
        nextDeliveryAt: new Date(clock.now().getTime() + retryDelay(attempts, this.opts)),
        deliveryError: failure.slice(0, MAX_ERROR),
      });
      this.ctx.logger.debug(
        { eventId: head.eventId, attempts, error: failure },
        'panel delivery will be retried',
      );
      return;
    }
  }

  /** One POST; undefined when the panel answered 2xx, else why not. Never logs the body. */
  private async post(url: string, row: RecognitionEventRow): Promise<string | undefined> {
    const abort = new AbortController();
    this.inFlight = abort;
    const timer = setTimeout(() => abort.abort(), this.opts.timeoutMs);
    try {
      const res = await this.opts.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(toPanelEvent(row)),
        signal: abort.signal,
        redirect: 'manual',
      });
      await res.body?.cancel().catch(() => undefined);
      return res.ok ? undefined : `the panel answered HTTP ${res.status}`;
    } catch (err) {
      if (abort.signal.aborted) {
        return this.stopped
          ? 'interrupted by a shutdown'
          : `the panel did not answer within ${this.opts.timeoutMs} ms`;
      }
      return `the panel could not be reached: ${describe(err)}`;
    } finally {
      clearTimeout(timer);
      this.inFlight = undefined;
    }
  }

  private async settle(
    row: RecognitionEventRow,
    changes: Partial<
      Pick<
        RecognitionEventRow,
        'deliveryState' | 'deliveryAttempts' | 'deliveredAt' | 'nextDeliveryAt' | 'deliveryError'
      >
    >,
  ): Promise<void> {
    // Only while still pending: a purge (or another process) may have moved it on.
    await this.ctx.models.RecognitionEvent.update(changes, {
      where: { id: row.id, deliveryState: 'pending' },
    });
    row.set(changes);
    liveHub(this.ctx).publish({
      organizationId: row.organizationId,
      event: 'delivery',
      data: { id: row.id, delivery: toEventOut(row).delivery },
    });
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

const jobs = new WeakMap<object, PanelDelivery>();

/** Creates the job of one running service (server.ts registers it). */
export function panelDeliveryJob(ctx: AppContext, opts?: DeliveryOptions): PanelDelivery {
  const job = new PanelDelivery(ctx, opts);
  jobs.set(ctx, job);
  return job;
}

/** The service's delivery job, if it has one (intake wakes it). */
export function panelDelivery(ctx: object): PanelDelivery | undefined {
  return jobs.get(ctx);
}
