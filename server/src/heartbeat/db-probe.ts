/**
 * The heartbeat's database check, shared: monitoring polls the heartbeat, and a `SELECT 1` per
 * request made the heartbeat cost a database round trip each time. Concurrent callers share
 * one check in flight, and a result is reused for up to `maxAgeMs` counted from the start of
 * the check that produced it, so a database that went down shows within that time (plus the
 * check's own timeout).
 */
export interface DbProbe {
  /** True when the database answered; never rejects. */
  check(): Promise<boolean>;
}

export interface DbProbeOptions {
  /** How long a result is reused, from the start of its check [1000]. */
  maxAgeMs?: number;
  /** Monotonic milliseconds; the real clock, not the service clock, which tests may stop. */
  now?: () => number;
}

export function createDbProbe(ping: () => Promise<boolean>, options: DbProbeOptions = {}): DbProbe {
  const maxAgeMs = options.maxAgeMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  let last: { ok: boolean; startedAt: number } | undefined;
  let inFlight: Promise<boolean> | undefined;

  return {
    check() {
      if (last && now() - last.startedAt < maxAgeMs) return Promise.resolve(last.ok);
      if (inFlight) return inFlight;
      const startedAt = now();
      const running = ping()
        .catch(() => false)
        .then((ok) => {
          last = { ok, startedAt };
          inFlight = undefined;
          return ok;
        });
      inFlight = running;
      return running;
    },
  };
}
