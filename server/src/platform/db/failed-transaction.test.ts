import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sequelize } from 'sequelize';
import { createSequelize } from './sequelize.js';

/**
 * Connections this process has open on a database: one descriptor each on its `-wal` file.
 * (Those on the database file itself are no measure: SQLite defers closing them while another
 * connection of the process holds a lock on the file, and reuses them for the next one.)
 */
async function openConnections(file: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target === `${file}-wal`) n++;
  }
  return n;
}

/** The count once closing (on the driver's threads) is done: polled, never a fixed wait. */
async function settledConnections(file: string, expected: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  while ((await openConnections(file)) !== expected && Date.now() < deadline) await sleep(50);
  return openConnections(file);
}

/**
 * Issue 32: a SQLite transaction whose BEGIN, COMMIT or ROLLBACK failed kept its connection
 * open — with its descriptors, and with the write lock when its transaction was still open —
 * because Sequelize's SQLite dialect "killed" it through a pool it is not in. SQLite only: on
 * MySQL the pool does own the connection.
 */
describe('a failed SQLite transaction on', () => {
  let dir: string;
  let file: string;
  let sequelize: Sequelize;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-failed-tx-'));
    file = path.join(dir, 'svc.sqlite');
    sequelize = createSequelize({ dialect: 'sqlite', storage: file });
    await sequelize.query('PRAGMA journal_mode = WAL');
    await sequelize.query('CREATE TABLE parents (id INTEGER PRIMARY KEY)');
    await sequelize.query(
      'CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id))',
    );
  });
  afterEach(async () => {
    await sequelize.close();
    await rm(dir, { recursive: true, force: true });
  });

  const write = (value: number) =>
    sequelize.transaction((transaction) =>
      sequelize.query('INSERT INTO parents (id) VALUES (?)', {
        replacements: [value],
        transaction,
      }),
    );

  test('COMMIT refused leaves neither the write lock nor the connection behind', async () => {
    const before = await openConnections(file);
    // A deferred foreign key fails the COMMIT, and SQLite keeps that transaction open.
    const failed = sequelize.transaction(async (transaction) => {
      await sequelize.query('PRAGMA defer_foreign_keys = ON', { transaction });
      await sequelize.query('INSERT INTO children (id, parent_id) VALUES (1, 999)', {
        transaction,
      });
    });
    await expect(failed).rejects.toThrow(/FOREIGN KEY/);
    // Before the fix the open transaction kept the lock: this BEGIN gave up (SQLITE_BUSY).
    await expect(write(1)).resolves.toBeDefined();
    expect(await settledConnections(file, before)).toBe(before);
  }, 30_000);

  test('BEGINs that give up on a held lock leave no descriptors behind', async () => {
    const before = await openConnections(file);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const started = new Promise<void>((resolve) => (holding = resolve));
    const holder = sequelize.transaction(async (transaction) => {
      await sequelize.query('INSERT INTO parents (id) VALUES (100)', { transaction });
      holding();
      await held;
    });
    await started;
    const waiters = await Promise.allSettled([2, 3, 4, 5].map((v) => write(v)));
    expect(waiters.map((w) => w.status)).toEqual(Array(4).fill('rejected'));
    release();
    await holder;
    expect(await settledConnections(file, before)).toBe(before);
    await expect(write(6)).resolves.toBeDefined();
  }, 60_000);
});
