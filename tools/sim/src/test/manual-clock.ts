import type { Cancel, Clock } from '../deps.js';

interface Pending {
  due: number;
  delay: number;
  callback: () => void;
  cancelled: boolean;
}

/** A clock whose timers run only when the test advances it. */
export class ManualClock implements Clock {
  private current: number;
  private timers: Pending[] = [];

  constructor(start = Date.parse('2026-11-22T06:00:00.000Z')) {
    this.current = start;
  }

  now(): Date {
    return new Date(this.current);
  }

  schedule(ms: number, callback: () => void): Cancel {
    const timer: Pending = { due: this.current + ms, delay: ms, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Delays of the timers still waiting, in the order they were scheduled. */
  pendingDelays(): number[] {
    return this.timers.filter((timer) => !timer.cancelled).map((timer) => timer.delay);
  }

  /** Moves time forward and runs every timer that falls due. */
  advance(ms: number): void {
    this.current += ms;
    const due = this.timers.filter((timer) => !timer.cancelled && timer.due <= this.current);
    this.timers = this.timers.filter((timer) => !due.includes(timer));
    for (const timer of due) timer.callback();
  }
}

/** A random source that plays back `values` in a loop. */
export function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length] ?? 0;
}
