import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { DatabaseState } from '@svc/shared';
import type { DbConfig } from '../config/config.js';
import type { Logger } from '../logger.js';
import { classifyDbError, FatalDatabaseError } from './errors.js';
import { clusterOf, createSequelize } from './sequelize.js';

/** The heartbeat's view of a MySQL/MariaDB connection: where it goes, and its conflicts. */
export interface ClusterInfo {
  /** `host:port` of the node in use. */
  node: string;
  /** Members of the Galera cluster's primary component; null off Galera. */
  clusterSize: number | null;
  /** Transactions run again after a deadlock or certification conflict since the start. */
  conflictRetries: number;
}

const CLUSTER_SIZE =
  "SELECT VARIABLE_VALUE AS size FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_CLUSTER_SIZE'";

export interface Database {
  readonly sequelize: Sequelize;
  readonly dialect: 'sqlite' | 'mysql';
  /** True once connected, migrated and seeded; business requests wait for it. */
  readonly ready: boolean;
  /** The last known state, for the heartbeat. */
  state(): DatabaseState;
  /** A cheap liveness probe (`SELECT 1`) bounded by a timeout. */
  ping(timeoutMs?: number): Promise<boolean>;
  markReady(): void;
  close(): Promise<void>;
  /** The node in use, the cluster size and conflict retries (MySQL/MariaDB only). */
  cluster(): ClusterInfo | undefined;
}

export function createDatabase(config: DbConfig, logger: Logger): Database {
  const sequelize = createSequelize(config);
  const cluster = clusterOf(sequelize);
  cluster?.onMove((from, to, why) =>
    logger.warn(
      { from: `${from.host}:${from.port}`, to: `${to.host}:${to.port}`, why },
      'database connections moved to another node',
    ),
  );
  // On Galera the probe reads the cluster's size too; elsewhere `SELECT 1`.
  const probe = async () => {
    if (cluster?.nodes.status().clusterSize === null) {
      await sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT });
      return true;
    }
    const [row] = await sequelize.query<{ size: string | number }>(CLUSTER_SIZE, {
      type: QueryTypes.SELECT,
    });
    cluster?.nodes.sawClusterSize(row ? Number(row.size) : null);
    return true;
  };
  let ready = false;
  let lastState: DatabaseState = 'connecting';
  return {
    sequelize,
    dialect: config.dialect,
    get ready() {
      return ready;
    },
    state: () => lastState,
    async ping(timeoutMs = 2_000) {
      const ac = new AbortController();
      try {
        const ok = await Promise.race([
          cluster
            ? probe()
            : sequelize.query('SELECT 1 AS ok', { type: QueryTypes.SELECT }).then(() => true),
          sleep(timeoutMs, false, { signal: ac.signal }),
        ]);
        if (ready) {
          const next: DatabaseState = ok ? 'up' : 'down';
          if (next !== lastState) logger.warn({ database: next }, `database is ${next}`);
          lastState = next;
        }
        return ok;
      } catch {
        if (ready && lastState !== 'down') logger.warn({ database: 'down' }, 'database is down');
        if (ready) lastState = 'down';
        return false;
      } finally {
        ac.abort();
      }
    },
    markReady() {
      ready = true;
      lastState = 'up';
    },
    async close() {
      await sequelize.close();
    },
    cluster: () =>
      cluster && { ...cluster.nodes.status(), conflictRetries: cluster.conflicts.retries },
  };
}

export interface ConnectOptions {
  db: DbConfig;
  sequelize: Sequelize;
  logger: Logger;
  signal?: AbortSignal;
  maxDelayMs?: number;
}

function describe(db: DbConfig): string {
  return db.dialect === 'sqlite' ? db.storage : `${db.user}@${db.host}:${db.port}/${db.database}`;
}

/**
 * Connects, retrying an unreachable server with capped exponential backoff and jitter.
 * Wrong credentials are fatal: the data belongs to another password and retrying cannot help.
 */
export async function connectWithRetry(opts: ConnectOptions): Promise<void> {
  const { db, sequelize, logger, signal } = opts;
  const maxDelay = opts.maxDelayMs ?? 15_000;
  let delay = 500;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      await sequelize.authenticate();
      if (attempt > 1) logger.info({ attempt }, 'database reachable');
      return;
    } catch (err) {
      const kind = classifyDbError(err);
      if (kind === 'access_denied' && db.dialect === 'mysql') {
        throw new FatalDatabaseError(
          `The database at ${db.host}:${db.port} refused user "${db.user}": the password in ` +
            'DB_PASSWORD (or DB_ROOT_PASSWORD) does not match the existing data. The data volume ' +
            'keeps the password it was first initialized with; set that password. Never clear ' +
            'the volume to repair a login.',
        );
      }
      if (kind === 'unknown_database' && db.dialect === 'mysql') {
        await createMissingDatabase(db, logger);
        continue;
      }
      logger.warn(
        { attempt, retryInMs: delay, target: describe(db), reason: (err as Error).message },
        'database not reachable yet; retrying',
      );
    }
    await sleep(delay + Math.floor(Math.random() * (delay / 4)), undefined, { signal });
    delay = Math.min(delay * 2, maxDelay);
  }
}

async function createMissingDatabase(
  db: Extract<DbConfig, { dialect: 'mysql' }>,
  logger: Logger,
): Promise<void> {
  const admin = createSequelize({ ...db, database: '' });
  try {
    await admin.query(
      `CREATE DATABASE IF NOT EXISTS \`${db.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    logger.info({ database: db.database }, 'created the empty database');
  } finally {
    await admin.close();
  }
}
