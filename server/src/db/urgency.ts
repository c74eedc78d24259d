import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sequelize } from 'sequelize';

/** Where a statement queues on a `prioritized` connection: urgent, or ordinary (none). */
const level = new AsyncLocalStorage<'urgent'>();
/**
 * Whether this process has a `prioritized` connection. Until it does, the urgency is not
 * recorded: Node 20's AsyncLocalStorage, once used, hooks every promise of the process for
 * good (its frames were 2 % of a profile of the server in a MySQL backfill, where no
 * connection reads the urgency).
 */
let tracked = false;

/** Runs `fn` with its statements ahead of ordinary ones on a connection made `prioritized`. */
export function asUrgent<T>(fn: () => Promise<T>): Promise<T> {
  return tracked ? level.run('urgent', fn) : fn();
}

/**
 * Runs `fn` with its statements in ordinary order, even when called from urgent work (a
 * device's plan started by an urgent check must not go ahead of everything for minutes).
 */
export function asOrdinary<T>(fn: () => T): T {
  return tracked ? level.exit(fn) : fn();
}

/**
 * Makes one Sequelize instance run at most `depth` statements at a time, those issued under
 * `asUrgent` first. For a SQLite connection of its own (the sync worker's): the driver runs a
 * connection's statements one after another in arrival order, so the claim and success write
 * a waiting person depends on would otherwise queue behind a backfill's plan chunks, claims and
 * writes. The driver still runs one statement at a time; a second one handed over before the
 * first ends starts as soon as SQLite is done with the first, instead of after the service's
 * busy event loop has got round to the first one's result (during a backfill that wait made
 * the connection look busy while SQLite's thread idled half the time). Urgent statements then
 * wait for at most `depth` statements already handed over.
 */
export function prioritized(sequelize: Sequelize, depth = 2): Sequelize {
  tracked = true;
  const run = sequelize.query.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  const queues = { urgent: [] as (() => void)[], ordinary: [] as (() => void)[] };
  let running = 0;
  const next = () => {
    while (running < depth) {
      const start = queues.urgent.shift() ?? queues.ordinary.shift();
      if (!start) return;
      running++;
      start();
    }
  };
  const query = (...args: unknown[]): Promise<unknown> => {
    // A transaction's statements go straight through: one waiting here while its transaction
    // holds SQLite's write lock would hold up every other writer.
    if ((args[1] as { transaction?: unknown } | undefined)?.transaction) return run(...args);
    return new Promise((resolve, reject) => {
      queues[level.getStore() ?? 'ordinary'].push(() => {
        run(...args)
          .then(resolve, reject)
          .finally(() => {
            running--;
            next();
          });
      });
      next();
    });
  };
  return Object.assign(sequelize, { query: query as Sequelize['query'] });
}
