import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes, type Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import type { Logger } from '../logger.js';
import type { MigrationContext } from './migration.js';
import { migrations } from './migrations/index.js';

export function createMigrator(sequelize: Sequelize, logger?: Logger) {
  const dialect = sequelize.getDialect() === 'sqlite' ? 'sqlite' : 'mysql';
  const context: MigrationContext = { qi: sequelize.getQueryInterface(), dialect };
  return new Umzug<MigrationContext>({
    migrations: migrations.map((m) => ({
      name: m.name,
      up: ({ context: ctx }) => m.up(ctx),
      down: ({ context: ctx }) => m.down(ctx),
    })),
    context,
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: logger
      ? {
          // One line per run (migrate() below); each migration's own events are detail.
          info: (e) => logger.debug(e, 'migration'),
          warn: (e) => logger.warn(e, 'migration'),
          error: (e) => logger.error(e, 'migration'),
          debug: (e) => logger.debug(e, 'migration'),
        }
      : undefined,
  });
}

/** The lock row's table: outside the migrations, since it guards them (like schema_migrations). */
const LOCK_TABLE = 'svc_schema_lock';
/** A holder that died keeps the lock this long; the living holder renews it far sooner. */
const LOCK_TTL_S = 30;
const LOCK_RENEW_MS = 5_000;
const LOCK_WAIT_MS = 300_000;

/**
 * Runs `fn` while holding the schema lock, so two server processes never migrate or seed at
 * once (`compose up` starts every replica together). On MySQL/MariaDB it is a row, taken by a
 * committed UPDATE: on a Galera cluster certification lets only one of two concurrent takers
 * commit, on every node alike, where a named lock (GET_LOCK) exists on one node only. The
 * holder renews it while `fn` runs; a holder that died frees it after LOCK_TTL_S. SQLite
 * serves one process, and its IMMEDIATE transactions serialize writers anyway.
 */
export async function withSchemaLock<T>(
  sequelize: Sequelize,
  fn: () => Promise<T>,
  { waitMs = LOCK_WAIT_MS, onWait }: { waitMs?: number; onWait?: (holder: string) => void } = {},
): Promise<T> {
  if (sequelize.getDialect() !== 'mysql') return fn();
  await sequelize.query(
    `CREATE TABLE IF NOT EXISTS ${LOCK_TABLE} (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, ` +
      'holder VARCHAR(80) NULL, expires_at DATETIME(3) NULL) ENGINE=InnoDB',
  );
  await sequelize.query(`INSERT IGNORE INTO ${LOCK_TABLE} (id) VALUES (1)`);
  const me = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const take = async () => {
    const [, changed] = await sequelize.query(
      `UPDATE ${LOCK_TABLE} SET holder = :me, ` +
        `expires_at = DATE_ADD(UTC_TIMESTAMP(3), INTERVAL ${LOCK_TTL_S} SECOND) ` +
        'WHERE id = 1 AND (holder IS NULL OR holder = :me OR expires_at < UTC_TIMESTAMP(3))',
      { replacements: { me }, type: QueryTypes.UPDATE },
    );
    return Number(changed) === 1;
  };
  const deadline = Date.now() + waitMs;
  while (!(await take())) {
    if (Date.now() > deadline) {
      throw new Error(`another server process held the schema lock for over ${waitMs / 1000} s`);
    }
    const [row] = await sequelize.query<{ holder: string | null }>(
      `SELECT holder FROM ${LOCK_TABLE} WHERE id = 1`,
      { type: QueryTypes.SELECT },
    );
    onWait?.(row?.holder ?? '');
    await sleep(200 + Math.random() * 300);
  }
  let renewing = Promise.resolve();
  const renew = setInterval(() => {
    renewing = take().then(
      () => undefined,
      () => undefined,
    );
  }, LOCK_RENEW_MS);
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    await renewing;
    await sequelize.query(
      `UPDATE ${LOCK_TABLE} SET holder = NULL, expires_at = NULL WHERE id = 1 AND holder = :me`,
      { replacements: { me }, type: QueryTypes.UPDATE },
    );
  }
}

/** Applies pending migrations only; returns the names applied. */
export async function migrate(sequelize: Sequelize, logger?: Logger): Promise<string[]> {
  const applied = (await createMigrator(sequelize, logger).up()).map((m) => m.name);
  logger?.info(
    applied.length === 0
      ? { applied: 0 }
      : { applied: applied.length, first: applied[0], last: applied[applied.length - 1] },
    'migrations',
  );
  return applied;
}
