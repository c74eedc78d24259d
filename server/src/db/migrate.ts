import { QueryTypes, type Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import type { Logger } from '../logger.js';
import type { MigrationContext } from './migration.js';
import { migrations } from './migrations/index.js';

const LOCK_NAME = 'svc_schema';
const LOCK_WAIT_S = 120;

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

/**
 * Runs `fn` while holding the schema lock. On MySQL a named lock (GET_LOCK) held by one pinned
 * connection keeps two server processes from migrating or seeding at once; SQLite serves one
 * process, and its IMMEDIATE transactions serialize writers anyway.
 */
export async function withSchemaLock<T>(sequelize: Sequelize, fn: () => Promise<T>): Promise<T> {
  if (sequelize.getDialect() !== 'mysql') return fn();
  const t = await sequelize.transaction();
  try {
    const [row] = await sequelize.query<{ got: number | string | null }>(
      'SELECT GET_LOCK(?, ?) AS got',
      { replacements: [LOCK_NAME, LOCK_WAIT_S], type: QueryTypes.SELECT, transaction: t },
    );
    if (Number(row?.got) !== 1) {
      throw new Error(`another server process held the schema lock for over ${LOCK_WAIT_S} s`);
    }
    try {
      return await fn();
    } finally {
      await sequelize.query('SELECT RELEASE_LOCK(?)', {
        replacements: [LOCK_NAME],
        transaction: t,
      });
    }
  } finally {
    await t.commit();
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
