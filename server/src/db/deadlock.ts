import { setTimeout as sleep } from 'node:timers/promises';
import { Transaction, type Sequelize } from 'sequelize';

/** InnoDB chose this statement's transaction as the victim of a deadlock (MySQL/MariaDB 1213). */
export function isDeadlock(err: unknown): boolean {
  const cause = (err as { parent?: unknown } | null)?.parent ?? err;
  const { errno, code } = (cause ?? {}) as { errno?: unknown; code?: unknown };
  return errno === 1213 || code === 'ER_LOCK_DEADLOCK';
}

/**
 * Runs `work` (a whole transaction, or one autocommit statement) again when InnoDB rolled it
 * back as a deadlock victim, as its manual advises: nothing of it was kept, so a second try is
 * safe. Claims and success writes of several devices touch neighbouring entries of the same
 * indexes and now and then deadlock under load; any other error is thrown at once.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, tries = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= tries || !isDeadlock(err)) throw err;
      // A short, random pause so the two transactions do not meet again in step.
      await sleep(attempt * (5 + Math.random() * 20));
    }
  }
}

/**
 * `fn` in a READ COMMITTED transaction (MySQL), run again when it loses a deadlock: locking
 * reads take no gap locks, and an INSERT … SELECT reads a snapshot instead of share-locking
 * every row it reads. For the sync worker's statements that many devices run side by side.
 */
export function readCommittedRetried<T>(
  sequelize: Sequelize,
  fn: (transaction: Transaction) => Promise<T>,
): Promise<T> {
  const isolationLevel = Transaction.ISOLATION_LEVELS.READ_COMMITTED;
  return retryOnDeadlock(() => sequelize.transaction({ isolationLevel }, fn));
}
