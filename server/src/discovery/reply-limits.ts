import { CENTRAL_REPLY_MIN_INTERVAL_MS } from '@svc/shared';

/**
 * Probe answers for the whole service, per second (and the burst allowed at once). A probe is
 * a person at a console pressing a button; a few consoles on one LAN never come near it, while
 * a spoofed flood from many source addresses is cut to a trickle of reflected datagrams.
 */
export const PROBE_ANSWERS_PER_S = 20;
/**
 * Announce replies for the whole service, per second (and the burst). A site at
 * DISCOVERY_MAX_NODES (10,000) terminals announcing every 10 s needs 1,000 a second; twice
 * that leaves room for a probe, which makes every terminal announce at once. A terminal whose
 * reply is left out is answered at its next announce.
 */
export const ANNOUNCE_REPLIES_PER_S = 2_000;

/** Tokens refilled continuously from a monotonic clock (real time: the limit is on traffic). */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst = perSecond,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** At most one answer per key per CENTRAL_REPLY_MIN_INTERVAL_MS (PROTOCOL §1), bounded memory. */
export class PerKeyInterval {
  private readonly last = new Map<string, number>();

  /** True when `key` may be answered at `nowMs`; the caller then calls `answered`. */
  due(key: string, nowMs: number): boolean {
    const at = this.last.get(key);
    return at === undefined || nowMs - at >= CENTRAL_REPLY_MIN_INTERVAL_MS;
  }

  answered(key: string, nowMs: number): void {
    this.last.set(key, nowMs);
    if (this.last.size > 100_000) {
      for (const [k, at] of this.last) {
        if (nowMs - at >= CENTRAL_REPLY_MIN_INTERVAL_MS) this.last.delete(k);
      }
    }
  }
}
