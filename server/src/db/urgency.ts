import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sequelize } from 'sequelize';

const urgent = new AsyncLocalStorage<true>();

/** Runs `fn` with its statements ahead of ordinary ones on a connection made `prioritized`. */
export function asUrgent<T>(fn: () => Promise<T>): Promise<T> {
  return urgent.run(true, fn);
}

/**
 * Makes one Sequelize instance run its statements one at a time, those issued under
 * `asUrgent` first. For a SQLite connection of its own (the sync worker's): the driver runs a
 * connection's statements one after another in arrival order, so the claim and success write
 * a waiting person depends on would otherwise queue behind a backfill's plan chunks, claims and
 * writes. One at a time is what the driver does anyway; the order is what changes.
 */
export function prioritized(sequelize: Sequelize): Sequelize {
  const run = sequelize.query.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  const queues: [(() => void)[], (() => void)[]] = [[], []];
  let busy = false;
  const next = () => {
    const start = queues[0].shift() ?? queues[1].shift();
    busy = start !== undefined;
    start?.();
  };
  const query = (...args: unknown[]): Promise<unknown> => {
    // A transaction's statements go straight through: one waiting here while its transaction
    // holds SQLite's write lock would hold up every other writer.
    if ((args[1] as { transaction?: unknown } | undefined)?.transaction) return run(...args);
    return new Promise((resolve, reject) => {
      queues[urgent.getStore() ? 0 : 1].push(() => {
        run(...args)
          .then(resolve, reject)
          .finally(next);
      });
      if (!busy) next();
    });
  };
  return Object.assign(sequelize, { query: query as Sequelize['query'] });
}
