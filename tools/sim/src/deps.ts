import { randomUUID } from 'node:crypto';
import { listenNodeHttp, type ListenHttp } from './infra/http-listener.js';
import { openNodeUdpSocket, type OpenUdpSocket } from './infra/udp.js';

/** A pending timer; cancelling twice is harmless. */
export interface Cancel {
  cancel(): void;
}

/** Time as a simulated node sees it: injectable so timers can be fired by a test. */
export interface Clock {
  now(): Date;
  /** Calls `callback` once after `ms` milliseconds unless cancelled. */
  schedule(ms: number, callback: () => void): Cancel;
}

export const systemClock: Clock = {
  now: () => new Date(),
  schedule(ms, callback) {
    const handle = setTimeout(callback, ms);
    // Timers alone never keep a test or the CLI alive; the HTTP servers do while they run.
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

/** What a simulated node reports as it works; the CLI prints these, the library stays silent. */
export type SimEvent =
  | { type: 'announce'; node: string; targets: string[]; error?: string }
  | { type: 'probe'; node: string; from: string }
  | { type: 'central-heard'; node: string; url: string; from: string }
  | { type: 'config-saved'; node: string; centralUrl: string; panelUrl: string }
  | { type: 'checkin'; node: string; url: string; status: number | null; error?: string }
  | { type: 'enroll'; node: string; url: string; status: number | null; error?: string }
  | { type: 'panel-event'; node: string; eventId: string }
  | { type: 'panel-repeat'; node: string; eventId: string }
  | { type: 'heartbeat'; node: string; url: string; status: number | null; error?: string }
  | { type: 'person'; node: string; action: 'put' | 'delete' | 'lose'; personId: string }
  | { type: 'event-sent'; node: string; eventId: string; status: number | null; error?: string }
  | { type: 'faults'; node: string; faults: Record<string, unknown> }
  | { type: 'warning'; node: string; message: string };

/** Outbound HTTP, shaped like the global fetch so tests may wrap or replace it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The named infrastructure every simulated node receives. Defaults are the real thing;
 * tests replace the clock and the random source to drive timers and jitter deterministically.
 */
export interface SimDeps {
  clock: Clock;
  /** Uniform in [0, 1): announce jitter and the drop fault. */
  random: () => number;
  uuid: () => string;
  openUdp: OpenUdpSocket;
  listenHttp: ListenHttp;
  fetch: FetchLike;
  onEvent: (event: SimEvent) => void;
}

export function resolveDeps(overrides: Partial<SimDeps> = {}): SimDeps {
  return {
    clock: systemClock,
    random: Math.random,
    uuid: randomUUID,
    openUdp: openNodeUdpSocket,
    listenHttp: listenNodeHttp,
    fetch: (url, init) => fetch(url, init),
    onEvent: () => undefined,
    ...overrides,
  };
}

/**
 * Runs `task` now and then again `intervalMs` after each run finishes; 0 disables the repeats.
 * `task` never rejects into the timer: failures are the task's own business to record.
 */
export function repeat(
  clock: Clock,
  intervalMs: number,
  task: () => Promise<void>,
  runNow = true,
): Cancel {
  let timer: Cancel | undefined;
  let stopped = false;
  const run = (): void => {
    void task()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped && intervalMs > 0) timer = clock.schedule(intervalMs, run);
      });
  };
  if (runNow) run();
  else if (intervalMs > 0) timer = clock.schedule(intervalMs, run);
  return {
    cancel() {
      stopped = true;
      timer?.cancel();
    },
  };
}
