import { AsyncLocalStorage } from 'node:async_hooks';
import { Sequelize, type Options } from 'sequelize';

/**
 * Runs at most `depth` statements at a time, those started under `urgent` first. For a SQLite
 * connection of its own (the sync worker's): the driver runs a connection's statements one
 * after another in arrival order, so the read and success write a waiting person depends on
 * would otherwise queue behind a backfill's plan chunks, reads and writes. The driver still
 * runs one statement at a time; a second one handed over before the first ends starts as soon
 * as SQLite is done with the first, instead of after the service's busy event loop has got
 * round to the first one's result (during a backfill that wait made the connection look busy
 * while SQLite's thread idled half the time). Urgent statements then wait for at most `depth`
 * statements already handed over.
 *
 * The urgency travels with the async context of the caller. The store exists only where a
 * connection is prioritized: Node 20's AsyncLocalStorage, once used, hooks every promise of the
 * process for good (its frames were 2 % of a profile of the server in a MySQL backfill, where
 * no connection reads the urgency).
 */
export class Priorities {
  private readonly level = new AsyncLocalStorage<'urgent'>();
  private readonly queues = { urgent: [] as (() => void)[], ordinary: [] as (() => void)[] };
  private running = 0;

  constructor(private readonly depth = 2) {}

  /** Runs `fn` with its statements ahead of ordinary ones. */
  urgent<T>(fn: () => Promise<T>): Promise<T> {
    return this.level.run('urgent', fn);
  }

  /**
   * Runs `fn` with its statements in ordinary order, even when called from urgent work (a
   * device's plan started by an urgent check must not go ahead of everything for minutes).
   */
  ordinary<T>(fn: () => T): T {
    return this.level.exit(fn);
  }

  /** Starts `statement` in its turn. */
  schedule<T>(statement: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queues[this.level.getStore() ?? 'ordinary'].push(() => {
        statement()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.next();
          });
      });
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.depth) {
      const start = this.queues.urgent.shift() ?? this.queues.ordinary.shift();
      if (!start) return;
      this.running++;
      start();
    }
  }
}

/** A Sequelize instance whose statements take their turn by urgency (Priorities). */
export class PrioritizedSequelize extends Sequelize {
  readonly priorities: Priorities;

  constructor(options: Options, depth?: number) {
    super(options);
    this.priorities = new Priorities(depth);
  }

  // Every statement, the models' included, goes through query(): one implementation of the
  // base's overloads (Promise<never> is assignable to each of their results).
  override query(...args: Parameters<Sequelize['query']>): Promise<never> {
    // A transaction's statements go straight through: one waiting here while its transaction
    // holds SQLite's write lock would hold up every other writer.
    const options = args[1] as { transaction?: unknown } | undefined;
    if (options?.transaction) return super.query(...args) as Promise<never>;
    return this.priorities.schedule(() => super.query(...args) as Promise<never>);
  }
}
