import { heartbeatResponse } from '@svc/shared';
import { QueryTypes, type Sequelize } from 'sequelize';
import { GaleraCluster, galeraUnavailable } from '../../test/galera-cluster.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { requireBuild, spawnServer, type Spawned } from '../../test/process.js';
import { waitFor } from '../../test/wait.js';
import { migrations } from './migrations/index.js';
import { rowLease } from './row-lease.js';
import { clusterOf, createSequelize } from './sequelize.js';

/**
 * Galera's rules, on a three-node cluster of the test's own (test/galera-cluster.ts): a
 * certification conflict is retried and counted, replicas started together migrate once,
 * connections fail over and skip a node that is not Synced, and a lease is never held twice.
 */
const unavailable = galeraUnavailable();
const describeCluster = unavailable ? describe.skip : describe;
if (unavailable) process.stdout.write(`[galera] cluster suites skipped: ${unavailable}\n`);

// A node restarting refuses connections meanwhile: a throw is "not yet".
const until = (what: string, check: () => Promise<boolean> | boolean, ms = 60_000) =>
  waitFor(check, (yes) => yes, { what, ms, everyMs: 100, tolerateErrors: true });

describeCluster('on a Galera cluster', () => {
  let cluster: GaleraCluster;
  const opened: Sequelize[] = [];
  const servers: TestServer[] = [];
  const spawned: Spawned[] = [];
  const open = (...args: Parameters<typeof createSequelize>) => {
    const s = createSequelize(...args);
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    cluster = await GaleraCluster.create(3);
  }, 300_000);
  afterAll(async () => {
    for (const p of spawned) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const s of servers) await s.stop().catch(() => undefined);
    for (const s of opened) await s.close().catch(() => undefined);
    await cluster?.destroy();
  }, 120_000);

  test('two replicas started together, on different nodes, both start and migrate once', async () => {
    requireBuild();
    const db = await cluster.appAccount([0, 1], 'svc_together');
    const env = (order: number[]) => ({
      HTTP_HOST: '127.0.0.1',
      DATA_DIR: cluster.dir,
      SVC_DISCOVERY_WORKER: '0',
      LOG_LEVEL: 'warn',
      ADMIN_INITIAL_PASSWORD: `together-${Math.random().toString(36).slice(2)}-horse`,
      DB_HOST: cluster.hostList(order),
      DB_USER: db.user,
      DB_PASSWORD: db.password,
      DB_DATABASE: db.database,
    });
    const started = await Promise.allSettled([
      spawnServer(env([0, 1]), 180_000),
      spawnServer(env([1, 0]), 180_000),
    ]);
    // One that started is stopped after the test even when the other did not.
    for (const r of started) if (r.status === 'fulfilled') spawned.push(r.value.proc);
    const failures = started.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(failures).toEqual([]);
    const [a, b] = spawned;
    if (!a || !b) throw new Error('both replicas should have started');
    const s = open(db);
    const rows = await s.query<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations', {
      type: QueryTypes.SELECT,
    });
    expect(Number(rows[0]!.n)).toBe(migrations.length);
    for (const p of [a, b]) {
      expect(p.stderr() + p.stdout()).not.toMatch(/could not prepare the database|Duplicate/);
      p.child.kill('SIGTERM');
      await p.exited;
    }
  }, 420_000);

  test('every table has a primary key and is InnoDB', async () => {
    const db = await cluster.appAccount([0], 'svc_together');
    const s = open(db);
    const loose = await s.query<{ t: string; engine: string }>(
      `SELECT t.TABLE_NAME AS t, t.ENGINE AS engine FROM information_schema.TABLES t
       WHERE t.TABLE_SCHEMA = :db AND (t.ENGINE <> 'InnoDB' OR NOT EXISTS (
         SELECT 1 FROM information_schema.TABLE_CONSTRAINTS c WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA
         AND c.TABLE_NAME = t.TABLE_NAME AND c.CONSTRAINT_TYPE = 'PRIMARY KEY'))`,
      { replacements: { db: db.database }, type: QueryTypes.SELECT },
    );
    expect(loose).toEqual([]);
  });

  test('a commit that fails certification is run again and counted in the heartbeat', async () => {
    const db = await cluster.appAccount([0], 'svc_conflict');
    const server = await startTestServer({ db, dataDir: cluster.dir });
    servers.push(server);
    const other = open({ ...db, ...cluster.appNodes([1])[0]!, nodes: undefined });
    const before = await heartbeat(server);
    expect(before.database).toMatchObject({ node: cluster.nodes[0]!.address, clusterSize: 3 });
    const key = 'galera.conflict';
    await server.ctx.db.sequelize.query(
      "INSERT INTO runtime_settings (`key`, value, updated_at) VALUES (:key, '0', UTC_TIMESTAMP())",
      { replacements: { key } },
    );
    let attempts = 0;
    // The first attempt writes the row on node 0 and waits while node 1 commits a write of the
    // same row: node 1 certifies first, so node 0's transaction is aborted and must run again.
    await server.ctx.db.sequelize.transaction(async (transaction) => {
      attempts++;
      await server.ctx.db.sequelize.query(
        'UPDATE runtime_settings SET value = CAST(value AS UNSIGNED) + 1 WHERE `key` = :key',
        { replacements: { key }, transaction },
      );
      if (attempts === 1) {
        await other.query(
          'UPDATE runtime_settings SET value = CAST(value AS UNSIGNED) + 100 WHERE `key` = :key',
          { replacements: { key } },
        );
      }
    });
    expect(attempts).toBeGreaterThanOrEqual(2);
    const [row] = await other.query<{ value: string }>(
      'SELECT value FROM runtime_settings WHERE `key` = :key',
      { replacements: { key }, type: QueryTypes.SELECT },
    );
    expect(Number(row!.value)).toBe(101);
    const after = await heartbeat(server);
    expect(after.database.conflictRetries).toBeGreaterThanOrEqual(
      before.database.conflictRetries! + 1,
    );
  }, 240_000);

  test('a node that is not Synced is not used; the next one is', async () => {
    await cluster.nodes[0]!.sql('SET GLOBAL wsrep_desync = ON');
    try {
      await until(
        'node 0 desynced',
        async () => (await cluster.nodes[0]!.status()).state !== 'Synced',
      );
      const db = await cluster.appAccount([0, 1], 'svc_conflict');
      const s = open(db);
      await s.query('SELECT 1');
      expect(clusterOf(s)!.nodes.status().node).toBe(cluster.nodes[1]!.address);
    } finally {
      await cluster.nodes[0]!.sql('SET GLOBAL wsrep_desync = OFF');
    }
  }, 120_000);

  test('a lease is never held twice while the node its holder wrote through dies', async () => {
    const db = await cluster.appAccount([0, 1], 'svc_conflict');
    // Its tables, whether or not an earlier case made them (migrations run once).
    servers.push(await startTestServer({ db, dataDir: cluster.dir }));
    const viaA = open(db);
    const viaB = open({ ...db, ...cluster.appNodes([1, 2])[0]!, nodes: cluster.appNodes([1, 2]) });
    const ttlMs = 1_500;
    const held: { owner: string; from: number; until: number }[] = [];
    const errors: string[] = [];
    const answered: { owner: string; at: number }[] = [];
    let stop = false;
    const contend = async (owner: string, sequelize: Sequelize, pause: number) => {
      // The time each take writes (row-lease.ts reads the clock once per take).
      let now = new Date();
      const clock = { now: () => (now = new Date()) };
      const where = { table: 'delivery_leases', keyColumn: 'lane', key: 'galera' };
      const lease = rowLease({ sequelize, clock }, where, { ttlMs, owner });
      while (!stop) {
        try {
          if (await lease.acquire()) {
            held.push({ owner, from: now.getTime(), until: now.getTime() + ttlMs });
          }
          answered.push({ owner, at: Date.now() });
        } catch (err) {
          errors.push(`${owner}: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, pause));
      }
    };
    // A takes the lease first (B, asking every 50 ms, would otherwise win the start and keep it
    // by renewing); then B contends for it while A's node dies.
    const running = [contend('A', viaA, 300)];
    await until('A holds the lease', () => held.some((h) => h.owner === 'A'));
    running.push(contend('B', viaB, 50));
    await cluster.nodes[0]!.kill();
    const killedAt = Date.now();
    await until('B takes over', () => held.some((h) => h.owner === 'B' && h.from > killedAt));
    await until('A is answered again, through another node', () =>
      answered.some((h) => h.owner === 'A' && h.at > killedAt),
    );
    // Both go on contending a while on the two surviving nodes.
    await new Promise((r) => setTimeout(r, 3_000));
    stop = true;
    await Promise.all(running);
    // No two owners' terms overlap, in the time each take wrote.
    const overlaps = held.filter((h) =>
      held.some((r) => r.owner !== h.owner && r.from <= h.from && h.from < r.until),
    );
    expect(overlaps).toEqual([]);
    expect(clusterOf(viaA)!.nodes.status().node).not.toBe(cluster.nodes[0]!.address);
    process.stdout.write(
      `[galera lease] ${held.length} takes, ${errors.length} failed calls while node 0 died\n`,
    );
    await cluster.nodes[0]!.start();
    await until(
      'node 0 back in the cluster',
      async () => (await cluster.nodes[1]!.status()).size === 3,
    );
  }, 240_000);
});

async function heartbeat(server: TestServer) {
  const res = await fetch(`${server.url}/api/heartbeat`);
  return heartbeatResponse.parse(await res.json());
}
