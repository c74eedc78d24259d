import type { Sequelize } from 'sequelize';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { defineModels, type Models } from '../db/models.js';
import { createSequelize, SQLITE_CACHE_KIB } from '../db/sequelize.js';
import { prioritized } from '../db/urgency.js';

/**
 * The database connection the sync worker's statements go through (`AppContext.sync.db`).
 * On SQLite with the worker on it is a connection of its own: the sqlite3 driver runs one
 * statement of a connection at a time in arrival order, and a backfill's reads, success writes
 * and plan chunks would otherwise queue in front of every request's. It is `prioritized`
 * (db/urgency.ts): statements issued under `asUrgent` go first. Elsewhere it is the service's.
 */
export interface SyncDb {
  sequelize: Sequelize;
  models: Models;
  /** Whether it is a connection of its own (prepared and closed with the service's). */
  own: boolean;
}

export function syncDb(config: Config, db: Database, models: Models): SyncDb {
  if (config.db.dialect !== 'sqlite' || !config.push.enabled) {
    return { sequelize: db.sequelize, models, own: false };
  }
  const sequelize = prioritized(createSequelize(config.db));
  return { sequelize, models: defineModels(sequelize), own: true };
}

/** Readies a connection of its own (the database is migrated by then). */
export async function prepareSyncDb(conn: SyncDb): Promise<void> {
  if (!conn.own) return;
  await conn.sequelize.query('PRAGMA busy_timeout = 5000');
  await conn.sequelize.query(`PRAGMA cache_size = ${SQLITE_CACHE_KIB}`);
}

export async function closeSyncDb(conn: SyncDb): Promise<void> {
  if (conn.own) await conn.sequelize.close();
}
