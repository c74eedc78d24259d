import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** How long before giving up (default 10 s). It bounds a hang; it is not a timing assertion. */
  ms?: number;
  /** What is waited for, named in the failure. */
  what?: string;
  /** The pause between polls (default 25 ms). */
  everyMs?: number;
  /** A throw of `fn` counts as "not yet" (a server restarting refuses connections). */
  tolerateErrors?: boolean;
}

/**
 * The suites' one poll (docs/testing.md: no fixed waits): calls `fn` until `ok` holds of its
 * value, and resolves with that value. Past the deadline it throws with what it saw last.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  ok: (value: T) => boolean = Boolean,
  opts: WaitOptions | number = {},
): Promise<T> {
  const {
    ms = 10_000,
    what,
    everyMs = 25,
    tolerateErrors = false,
  } = typeof opts === 'number' ? { ms: opts } : opts;
  const deadline = Date.now() + ms;
  for (;;) {
    let last: unknown;
    try {
      const value = await fn();
      if (ok(value)) return value;
      last = value;
    } catch (err) {
      if (!tolerateErrors) throw err;
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline) {
      const seen = JSON.stringify(last)?.slice(0, 500) ?? 'nothing';
      throw new Error(`${what ?? 'condition'} not met within ${ms} ms; last seen: ${seen}`);
    }
    await sleep(everyMs);
  }
}

/** `waitFor` of a yes/no condition, named for the failure (the long default suits fleets). */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 120_000,
): Promise<void> {
  await waitFor(check, (yes) => yes, { what, ms, everyMs: 50 });
}
