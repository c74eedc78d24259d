import type { Sequelize } from 'sequelize';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/database.js';
import { defineModels, type Models } from '../platform/db/models.js';
import { createPrioritizedSqlite, prepareSqlite } from '../platform/db/sequelize.js';

/**
 * The database connection the sync worker's statements go through (`AppContext.sync.db`).
 * On SQLite with the worker on it is a connection of its own: the sqlite3 driver runs one
 * statement of a connection at a time in arrival order, and a backfill's reads, success writes
 * and plan chunks would otherwise queue in front of every request's. Its statements take
 * turns by urgency (db/urgency.ts): those run under `urgent` go first. Elsewhere it is the
 * service's, and urgency means nothing.
 */
export interface SyncDb {
  sequelize: Sequelize;
  models: Models;
  /** Whether it is a connection of its own (prepared and closed with the service's). */
  own: boolean;
  /** Runs `fn` with its statements ahead of the ordinary ones (a waiting person's). */
  urgent<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` with its statements in ordinary order, even from urgent work. */
  ordinary<T>(fn: () => T): T;
}

export function syncDb(config: Config, db: Database, models: Models): SyncDb {
  if (config.db.dialect !== 'sqlite' || !config.push.enabled) {
    return {
      sequelize: db.sequelize,
      models,
      own: false,
      urgent: (fn) => fn(),
      ordinary: (fn) => fn(),
    };
  }
  const sequelize = createPrioritizedSqlite(config.db);
  const { priorities } = sequelize;
  return {
    sequelize,
    models: defineModels(sequelize),
    own: true,
    urgent: (fn) => priorities.urgent(fn),
    ordinary: (fn) => priorities.ordinary(fn),
  };
}

/** Readies a connection of its own (the database is migrated by then). */
export async function prepareSyncDb(conn: SyncDb): Promise<void> {
  if (!conn.own) return;
  await prepareSqlite(conn.sequelize, { wal: false });
}

export async function closeSyncDb(conn: SyncDb): Promise<void> {
  if (conn.own) await conn.sequelize.close();
}
