import { QueryTypes } from 'sequelize';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { createSequelize } from './sequelize.js';
import { createMigrator, migrate } from './migrate.js';
import { migrations } from './migrations/index.js';
import { defineModels } from './models.js';
import { systemClock } from '../clock.js';
import { factories } from '../../test/factories.js';
import type { TestServer } from '../../test/harness.js';

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
          'acceptance_reports',
          'administrator_recovery_codes',
          'administrator_totp',
          'administrators',
          'audit_log',
          'delivery_leases',
          'devices',
          'discovered_nodes',
          'files',
          'import_jobs',
          'people',
          'person_faces',
          'person_spaces',
          'photo_variants',
          'recognition_events',
          'recognition_delivery_failures',
          'spaces',
          'sync_device_leases',
          'sync_tasks',
          'login_failures',
          'login_guards',
          'organizations',
          'runtime_settings',
          'schema_migrations',
          'sessions',
          'terminal_spaces',
          'enrollment_changes',
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
    // Every migration three times (SQLite rebuilds a table for most changes): on a loaded
    // two-core CI machine this has taken longer than the default 30 s.
  }, 180_000);

  test('migration names are unique, ordered and never renumbered', () => {
    const names = migrations.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    // Numbers rise; a file's reserved range may leave gaps (migrations/index.ts).
    const numbers = names.map((n) => Number(/^(\d{4})-/.exec(n)?.[1]));
    expect(numbers.every((n, i) => Number.isInteger(n) && (i === 0 || n > numbers[i - 1]!))).toBe(
      true,
    );
  });

  test("0038 gives access rows written before 0037 their person's name key", async () => {
    const sequelize = createSequelize(scratch.db);
    try {
      await createMigrator(sequelize).down({ to: 0 });
      await createMigrator(sequelize).up({ to: '0036-discovered-nodes-id-case-sensitive' });
      const now = new Date();
      await sequelize.query(
        `INSERT INTO organizations (id, name, created_at, updated_at) VALUES ('o1', 'Org', ?, ?)`,
        { replacements: [now, now] },
      );
      await sequelize.query(
        `INSERT INTO spaces (id, organization_id, parent_id, name, created_at, updated_at) VALUES ('s1', 'o1', NULL, 'Site', ?, ?)`,
        { replacements: [now, now] },
      );
      await sequelize.query(
        `INSERT INTO people (id, organization_id, name, name_key, id_number, enabled, version, created_at, updated_at) VALUES ('p1', 'o1', 'Zoë Test', 'zoe test', 'T-1', 1, 1, ?, ?)`,
        { replacements: [now, now] },
      );
      await sequelize.query(`INSERT INTO person_spaces (person_id, space_id) VALUES ('p1', 's1')`);
      await migrate(sequelize);
      const rows = await sequelize.query('SELECT person_id, name_key FROM person_spaces', {
        type: QueryTypes.SELECT,
      });
      expect(rows).toEqual([{ person_id: 'p1', name_key: 'zoe test' }]);
    } finally {
      await sequelize.close();
    }
  });

  test('0260 puts a task a pre-0051 worker left running back, then the claim columns go', async () => {
    // A database of its own: the tests above leave rows behind.
    const own = await scratchDb(dialect);
    const sequelize = createSequelize(own.db);
    try {
      await createMigrator(sequelize).up({ to: '0250-add-administrators-language' });
      const models = defineModels(sequelize);
      const build = factories({ ctx: { models, clock: systemClock } } as unknown as TestServer);
      const device = await build.buildDevice({});
      const person = await build.buildPerson({ organizationId: device.organizationId });
      const long = new Date('2026-01-01T00:00:00.000Z');
      await sequelize.query(
        `INSERT INTO sync_tasks (id, organization_id, person_id, device_id, action, lane, state,
           person_version, attempts, next_attempt_at, claimed_by, claimed_until, created_at,
           updated_at) VALUES ('t1', ?, ?, ?, 'put', 'bulk', 'running', 1, 2, ?, 'old-worker', ?, ?, ?)`,
        {
          replacements: [device.organizationId, person.id, device.id, long, long, long, long],
        },
      );
      await migrate(sequelize);
      const [task] = await sequelize.query<Record<string, unknown>>(
        "SELECT * FROM sync_tasks WHERE id = 't1'",
        { type: QueryTypes.SELECT },
      );
      expect(task).toMatchObject({ state: 'pending', attempts: 2 });
      expect(task).not.toHaveProperty('claimed_by');
      expect(task).not.toHaveProperty('claimed_until');
      expect(new Date(task!.next_attempt_at as string).getTime()).toBeGreaterThan(long.getTime());
      // The indexes survive (a rebuilt SQLite table would have lost them).
      const indexes = (await sequelize.getQueryInterface().showIndex('sync_tasks')) as {
        name: string;
      }[];
      expect(indexes.map((i) => i.name)).toContain('sync_tasks_device_due');
      // Down and up again: the columns come back empty and go again.
      await createMigrator(sequelize).down({ to: '0260-requeue-claimed-sync-tasks' });
      expect(Object.keys(await sequelize.getQueryInterface().describeTable('sync_tasks'))).toEqual(
        expect.arrayContaining(['claimed_by', 'claimed_until']),
      );
      await migrate(sequelize);
    } finally {
      await sequelize.close();
      await own.drop();
    }
  });
});
