import type { Sequelize, Transaction } from 'sequelize';

/** Runs `fn` in the caller's transaction, or in a new one when there is none. */
export function inTransaction<T>(
  deps: { db: { sequelize: Sequelize } },
  transaction: Transaction | undefined,
  fn: (t: Transaction) => Promise<T>,
): Promise<T> {
  return transaction ? fn(transaction) : deps.db.sequelize.transaction(fn);
}
