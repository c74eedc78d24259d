import { Sequelize, Transaction, type Options } from 'sequelize';
import type { DbConfig } from '../config/config.js';
import { retryConflicts, type ConflictStats } from './deadlock.js';
import { failOver, type DbNode, type NodeList } from './nodes.js';
import { PrioritizedSequelize } from './urgency.js';

/**
 * Page cache of each SQLite connection of the service: 128 MiB (negative = KiB). The default
 * is 2 MB; a site of 100,000 people on 20 devices is a 1 GB file with random index writes.
 */
export const SQLITE_CACHE_KIB = -131_072;

/**
 * Readies a SQLite connection once it is connected (and, for the service's, migrated): waits
 * up to 5 s for another connection's write lock, and gets the page cache above. `wal`: the
 * database file goes to write-ahead logging (once, by the service's connection; it persists).
 */
export async function prepareSqlite(
  sequelize: Sequelize,
  { wal }: { wal: boolean },
): Promise<void> {
  if (wal) await sequelize.query('PRAGMA journal_mode = WAL');
  await sequelize.query('PRAGMA busy_timeout = 5000');
  await sequelize.query(`PRAGMA cache_size = ${SQLITE_CACHE_KIB}`);
}

/** Builds the Sequelize instance for either dialect; nothing connects until first use. */
export function createSequelize(db: DbConfig, overrides: Partial<Options> = {}): Sequelize {
  const common: Options = {
    logging: false,
    define: { underscored: true, timestamps: false },
    ...overrides,
  };
  if (db.dialect === 'sqlite') {
    return closingFailedTransactions(new Sequelize(sqliteOptions(db, common)));
  }
  const sequelize = new Sequelize(db.database, db.user, db.password, {
    ...common,
    dialect: 'mysql',
    host: db.host,
    port: db.port,
    timezone: '+00:00',
    // Fail fast while the database is down: requests answer 503 instead of hanging.
    pool: { max: 10, min: 0, acquire: 5_000, idle: 10_000, evict: 5_000 },
    dialectOptions: { connectTimeout: 3_000, supportBigNumbers: true, bigNumberStrings: true },
  });
  const conflicts: ConflictStats = { retries: 0, givenUp: 0 };
  const nodes = failOver(sequelize, db.nodes ?? [{ host: db.host, port: db.port }], (...move) =>
    onMove?.(...move),
  );
  const cluster: Cluster = {
    nodes,
    conflicts,
    onMove: (fn) => {
      onMove = fn;
    },
  };
  let onMove: ((from: DbNode, to: DbNode, why: string[]) => void) | undefined;
  return Object.assign(retryConflicts(sequelize, conflicts), { [CLUSTER]: cluster });
}

function sqliteOptions(db: Extract<DbConfig, { dialect: 'sqlite' }>, common: Options): Options {
  return {
    ...common,
    dialect: 'sqlite',
    storage: db.storage,
    // IMMEDIATE takes the write lock at BEGIN, so two writers never deadlock on upgrade.
    transactionType: Transaction.TYPES.IMMEDIATE,
    retry: { max: 10, match: [/SQLITE_BUSY/] },
  };
}

/**
 * Another connection to a SQLite database, its statements taking turns by urgency
 * (urgency.ts): the sync worker's own.
 */
export function createPrioritizedSqlite(
  db: Extract<DbConfig, { dialect: 'sqlite' }>,
): PrioritizedSequelize {
  const options = sqliteOptions(db, {
    logging: false,
    define: { underscored: true, timestamps: false },
  });
  return closingFailedTransactions(new PrioritizedSequelize(options));
}

const CLUSTER = Symbol('svc.cluster');

/** The database nodes and conflict retries of a MySQL/MariaDB instance (db/nodes.ts, deadlock.ts). */
export interface Cluster {
  nodes: NodeList;
  conflicts: ConflictStats;
  /** Called when new connections move to another node (for the log). */
  onMove(fn: (from: DbNode, to: DbNode, why: string[]) => void): void;
}

/** The cluster handle of an instance made by createSequelize; undefined on SQLite. */
export function clusterOf(sequelize: Sequelize): Cluster | undefined {
  return (sequelize as Sequelize & { [CLUSTER]?: Cluster })[CLUSTER];
}

interface SqliteConnection {
  uuid?: string;
  close(callback: (err: Error | null) => void): void;
}

/**
 * Each SQLite transaction has a connection of its own, opened at BEGIN and closed at its end.
 * When its BEGIN, COMMIT or ROLLBACK fails, Sequelize "kills" that connection through its pool,
 * which SQLite connections are never in: the kill did nothing (issue 32). The connection stayed
 * open with its descriptors — a burst whose BEGINs gave up on the busy lock left hundreds — and,
 * when its transaction was still open (a COMMIT that failed leaves it open), with SQLite's write
 * lock, so every later write waited on a lock nobody would release. Closing it rolls back what
 * it held and frees both.
 */
function closingFailedTransactions<S extends Sequelize>(sequelize: S): S {
  const manager = sequelize.connectionManager as unknown as {
    connections: Record<string, SqliteConnection>;
    destroyConnection(connection: SqliteConnection): Promise<void>;
  };
  manager.destroyConnection = async (connection) => {
    if (connection.uuid) delete manager.connections[connection.uuid];
    // An error here means it was closed already; either way it holds nothing any more.
    await new Promise<void>((resolve) => connection.close(() => resolve()));
  };
  return sequelize;
}
