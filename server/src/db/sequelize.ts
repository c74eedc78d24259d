import { Sequelize, Transaction, type Options } from 'sequelize';
import type { DbConfig } from '../config/config.js';

/**
 * Page cache of each SQLite connection of the service: 128 MiB (negative = KiB). The default
 * is 2 MB; a site of 100,000 people on 20 devices is a 1 GB file with random index writes.
 */
export const SQLITE_CACHE_KIB = -131_072;

/** Builds the Sequelize instance for either dialect; nothing connects until first use. */
export function createSequelize(db: DbConfig, overrides: Partial<Options> = {}): Sequelize {
  const common: Options = {
    logging: false,
    define: { underscored: true, timestamps: false },
    ...overrides,
  };
  if (db.dialect === 'sqlite') {
    return new Sequelize({
      ...common,
      dialect: 'sqlite',
      storage: db.storage,
      // IMMEDIATE takes the write lock at BEGIN, so two writers never deadlock on upgrade.
      transactionType: Transaction.TYPES.IMMEDIATE,
      retry: { max: 10, match: [/SQLITE_BUSY/] },
    });
  }
  return new Sequelize(db.database, db.user, db.password, {
    ...common,
    dialect: 'mysql',
    host: db.host,
    port: db.port,
    timezone: '+00:00',
    // Fail fast while the database is down: requests answer 503 instead of hanging.
    pool: { max: 10, min: 0, acquire: 5_000, idle: 10_000, evict: 5_000 },
    dialectOptions: { connectTimeout: 3_000, supportBigNumbers: true, bigNumberStrings: true },
  });
}
