import { setTimeout as sleep } from 'node:timers/promises';
import { Transaction, type Sequelize } from 'sequelize';

/** Tries of one transaction (or autocommit statement) that keeps losing conflicts. */
export const CONFLICT_TRIES = 5;

/** How many times this process ran work again after a conflict, and gave up. */
export interface ConflictStats {
  retries: number;
  givenUp: number;
}

/**
 * The transaction was rolled back as a conflict's loser: an InnoDB deadlock victim, or on
 * Galera a commit that failed certification (or was aborted by a replicated write), which
 * MariaDB reports the same way (1213, SQLSTATE 40001).
 */
export function isDeadlock(err: unknown): boolean {
  const cause = (err as { parent?: unknown } | null)?.parent ?? err;
  const { errno, code, sqlState } = (cause ?? {}) as {
    errno?: unknown;
    code?: unknown;
    sqlState?: unknown;
  };
  return errno === 1213 || code === 'ER_LOCK_DEADLOCK' || sqlState === '40001';
}

/**
 * Runs `work` (a whole transaction, or one autocommit statement) again when it lost a
 * conflict: nothing of it was kept, so another try is safe. InnoDB deadlocks between
 * neighbouring index entries, and on Galera any commit may fail certification against a
 * write committed on another node at the same time. Bounded; any other error is thrown at once.
 */
export async function retryOnDeadlock<T>(
  work: () => Promise<T>,
  tries = CONFLICT_TRIES,
  stats?: ConflictStats,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isDeadlock(err)) throw err;
      if (attempt >= tries) {
        if (stats) stats.givenUp++;
        throw err;
      }
      if (stats) stats.retries++;
      // A growing, random pause so the two writers do not meet again in step.
      await sleep(attempt * (5 + Math.random() * 20));
    }
  }
}

type TransactionFn = (...args: unknown[]) => Promise<unknown>;
type QueryFn = (...args: unknown[]) => Promise<unknown>;

/**
 * Makes every write of `sequelize` (MySQL/MariaDB) retried after a conflict, in one place
 * instead of per call: each managed transaction (`sequelize.transaction(fn)`, run again whole)
 * and each statement outside a transaction (autocommit, its own transaction). Statements of
 * a transaction, savepoints and unmanaged transactions are left to their transaction's owner:
 * a conflict rolls the whole transaction back, so only all of it can be tried again.
 */
export function retryConflicts(sequelize: Sequelize, stats: ConflictStats): Sequelize {
  const transaction = sequelize.transaction.bind(sequelize) as TransactionFn;
  const query = sequelize.query.bind(sequelize) as QueryFn;
  const managed: TransactionFn = (options, fn) => {
    const callback = typeof options === 'function' ? options : fn;
    const nested = (options as { transaction?: unknown } | undefined)?.transaction;
    if (typeof callback !== 'function' || nested) return transaction(options, fn);
    return retryOnDeadlock(() => transaction(options, fn), CONFLICT_TRIES, stats);
  };
  const autocommit: QueryFn = (sql, options) => {
    if ((options as { transaction?: unknown } | undefined)?.transaction) return query(sql, options);
    return retryOnDeadlock(() => query(sql, options), CONFLICT_TRIES, stats);
  };
  return Object.assign(sequelize, {
    transaction: managed as Sequelize['transaction'],
    query: autocommit as Sequelize['query'],
  });
}

/**
 * `fn` in a READ COMMITTED transaction (MySQL), retried by `retryConflicts` when it loses:
 * locking reads take no gap locks, and an INSERT … SELECT reads a snapshot instead of
 * share-locking every row it reads. For the sync worker's statements that many devices run
 * side by side.
 */
export function readCommittedRetried<T>(
  sequelize: Sequelize,
  fn: (transaction: Transaction) => Promise<T>,
): Promise<T> {
  const isolationLevel = Transaction.ISOLATION_LEVELS.READ_COMMITTED;
  return sequelize.transaction({ isolationLevel }, fn);
}
