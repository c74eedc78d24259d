import type { AppContext } from '../../platform/context.js';
import type { InFlight } from './inflight.js';
import { SUCCESS_DELAY_MS, SUCCESS_STATEMENT_MAX } from '../knobs.js';
import { recordDone, type DoneItem } from './store/outcomes.js';

export type { DoneItem } from './store/outcomes.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger' | 'live'>;

/** A rejection as an Error, to be thrown again later. */
export const asError = (err: unknown): Error =>
  err instanceof Error ? err : new Error(String(err));

interface Pending extends DoneItem {
  urgent: boolean;
}

/**
 * Successes of every device of a run, written together: a backfill is nearly all successes,
 * and one UPDATE (one commit) per few hundred of them instead of one per read keeps the
 * database's single writer free for reads and plans. A success is written within `delayMs`
 * (at once when someone waits for it: `urgent`); the task counts as in flight until then.
 */
export class SuccessWriter {
  private pending: Pending[] = [];
  /** Taken from `pending`, being written. */
  private writing = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /**
   * What waits has waited long enough (its timer ran out, or the writer is closing): the
   * writer writes it even when it is less than a statement.
   */
  private due = false;
  private failure: Error | undefined;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly deps: Deps,
    private readonly inFlight: InFlight,
    private readonly opts: { delayMs: number; maxItems: number } = {
      delayMs: SUCCESS_DELAY_MS,
      maxItems: SUCCESS_STATEMENT_MAX,
    },
  ) {}

  add(item: DoneItem, urgent = false): void {
    // Someone waits for the urgent ones: they go first, in a statement ahead of bulk work.
    if (urgent) this.pending.unshift({ ...item, urgent });
    else this.pending.push({ ...item, urgent });
    if (urgent || this.pending.length >= this.opts.maxItems) void this.write();
    else this.arm();
  }

  /** The bulk successes waiting are written within `delayMs`. */
  private arm(): void {
    if (this.timer || this.pending.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due = true;
      void this.write();
    }, this.opts.delayMs);
    this.timer.unref();
  }

  /**
   * Resolves once fewer than two statements' worth of successes wait to be written. A device
   * stream asks before each read, so pushes cannot run ahead of the writes (the successes
   * waiting are tasks still pending in the database, and in flight in memory).
   */
  room(): Promise<void> {
    if (!this.full()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Two statements' worth wait (taken to write, or pending). */
  private full(): boolean {
    return this.pending.length + this.writing >= 2 * this.opts.maxItems;
  }

  /** Lets waiting reads go on once the backlog is under the limit (or nothing is written). */
  private wake(): void {
    if (this.running && this.full()) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /**
   * Starts the writer unless it runs. One writer at a time: successes that arrive while it
   * writes go together in its next statement, so twenty devices' urgent successes are one or
   * two statements, not twenty queued behind each other.
   */
  private write(): Promise<void> {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      // Due meanwhile (its timer ran out during the last write), or left for its timer.
      if (this.writable()) void this.write();
      else this.arm();
      this.wake();
    });
    return this.running;
  }

  /** Whether the writer writes again at once: urgent work, a full statement, or what is due. */
  private writable(): boolean {
    return (
      this.pending.length > 0 &&
      (this.due || this.pending[0]!.urgent || this.pending.length >= this.opts.maxItems)
    );
  }

  /**
   * Writes while something is writable. Bulk successes that arrive during a write wait for a
   * full statement or their timer instead of following at once: written as they came (one
   * statement per write's duration), a MariaDB backfill wrote ~70 successes a statement, and
   * each statement's own cost (its parse, its commit) was paid for that few.
   */
  private async drain(): Promise<void> {
    while (this.writable()) {
      // Urgent ones (at the front) go alone: their statement stays small and quick.
      const bulkAt = this.pending.findIndex((p) => !p.urgent);
      const size = this.pending[0]!.urgent && bulkAt > 0 ? bulkAt : this.pending.length;
      const chunk = this.pending.splice(0, Math.min(size, this.opts.maxItems));
      // All that waited is in this statement: what arrives meanwhile waits for its own timer.
      if (this.pending.length === 0) this.due = false;
      this.writing = chunk.length;
      let announce: (() => void) | undefined;
      try {
        announce = chunk[0]!.urgent
          ? await this.deps.sync.db.urgent(() => recordDone(this.deps, chunk))
          : await recordDone(this.deps, chunk);
      } catch (err) {
        // Not written: the tasks are still pending and are pushed again by the device's next
        // stream (PUT is idempotent). The run reports the failure when it closes.
        this.failure ??= asError(err);
        this.deps.logger.warn({ err }, 'sync outcomes could not be written');
      } finally {
        for (const { task } of chunk) this.inFlight.settle(task.id);
      }
      // After the settle: a page refetching on the message sees them settled, not `running`.
      announce?.();
      this.writing = 0;
      this.wake();
    }
  }

  /** Writes everything still pending; rejects with the first write that failed. */
  async close(): Promise<void> {
    this.due = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.write();
    if (this.failure !== undefined) throw this.failure;
  }
}
