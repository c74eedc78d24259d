import { QueryTypes } from 'sequelize';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { createSequelize } from './sequelize.js';
import { createMigrator, migrate } from './migrate.js';
import { migrations } from './migrations/index.js';

describe.each(DIALECTS)('migrations on %s', (dialect) => {
  let scratch: ScratchDb;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
  });
  afterAll(async () => {
    await scratch.drop();
  });

  async function tables(sequelize: ReturnType<typeof createSequelize>): Promise<string[]> {
    const names = (await sequelize.getQueryInterface().showAllTables()) as unknown[];
    return names
      .map((t) => (typeof t === 'string' ? t : (t as { tableName: string }).tableName))
      .filter((t) => t !== 'sqlite_sequence')
      .sort();
  }

  test('apply all, roll all back, apply again; pending ones only on a second run', async () => {
    const sequelize = createSequelize(scratch.db);
    try {
      expect(await migrate(sequelize)).toEqual(migrations.map((m) => m.name));
      expect(await tables(sequelize)).toEqual(
        [
          'administrators',
          'audit_log',
          'devices',
          'discovered_nodes',
          'files',
          'import_jobs',
          'people',
          'person_spaces',
          'recognition_events',
          'spaces',
          'sync_tasks',
          'login_failures',
          'organizations',
          'runtime_settings',
          'schema_migrations',
          'sessions',
        ].sort(),
      );
      expect(await migrate(sequelize)).toEqual([]);

      await createMigrator(sequelize).down({ to: 0 });
      expect(await tables(sequelize)).toEqual(['schema_migrations']);
      expect(await migrate(sequelize)).toHaveLength(migrations.length);

      const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', {
        type: QueryTypes.SELECT,
      });
      expect(rows).toHaveLength(migrations.length);
    } finally {
      await sequelize.close();
    }
  });

  test('migration names are unique, ordered and never renumbered', () => {
    const names = migrations.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    names.forEach((n, i) => expect(n.startsWith(String(i + 1).padStart(4, '0'))).toBe(true));
  });
});
