import type { Clock, Timer } from '../core/clock.js';

interface Scheduled {
  every: number;
  due: number;
  callback: () => void;
  cancelled: boolean;
}

/** A manual clock for tests: time moves only through `advance`, running due timers in order. */
export class FakeClock implements Clock {
  #now: number;
  readonly #timers: Scheduled[] = [];

  constructor(start = Date.parse('2026-11-22T06:30:00.000Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  every(ms: number, callback: () => void): Timer {
    if (!(ms > 0)) throw new RangeError('interval must be positive');
    const timer: Scheduled = { every: ms, due: this.#now + ms, callback, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Number of timers still running (lets tests check that close() stops them). */
  get activeTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#timers
        .filter((timer) => !timer.cancelled && timer.due <= target)
        .sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.#now = next.due;
      next.due += next.every;
      next.callback();
    }
    this.#now = target;
  }
}
