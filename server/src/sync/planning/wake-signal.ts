/**
 * A wait that ends early when woken: the worker's in-run loop sleeps between its checks of
 * the desired state, and a change made through the API (kick-after-changes.ts) wakes it at once
 * instead of leaving the change to wait for the next check.
 */
export class Waker {
  private readonly waiting = new Set<() => void>();
  private pending = false;

  /** Resolves after `ms`, when `signal` aborts, or when woken (at once if woken meanwhile). */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.waiting.add(done);
    });
  }

  /** Ends every wait in progress; with none in progress, the next wait returns at once. */
  wake(): void {
    if (this.waiting.size === 0) this.pending = true;
    for (const done of [...this.waiting]) done();
  }
}
