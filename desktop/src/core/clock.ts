/** Time as the core sees it: injectable so the offline rule can be tested without waiting. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` every `ms` milliseconds until the returned timer is cancelled. */
  every(ms: number, callback: () => void): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, callback) {
    const handle = setInterval(callback, ms);
    // A sweep timer alone must never keep a process (a test, a CLI) alive.
    handle.unref();
    return { cancel: () => clearInterval(handle) };
  },
};
