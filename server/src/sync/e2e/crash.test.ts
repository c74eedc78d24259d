import { freePort } from '../../test/mariadb-instance.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer } from '../../test/harness.js';
import { TestClient } from '../../test/http-client.js';
import { SIGNED_IN_PASSWORD, signedIn } from '../../test/admins.js';
import {
  MAIN,
  requireBuild,
  spawnNode,
  waitForOwnHeartbeat,
  type Spawned,
} from '../../test/process.js';
import { deviceSyncOut } from '@svc/shared';
import { expectConverged, holdings, seedFleet, type Fleet } from '../../test/sync-fleet.js';
import { until } from '../../test/wait.js';

const PEOPLE = 1000;
const DEVICES = 2;
const TOTAL = PEOPLE * DEVICES;

/**
 * The real built server (`dist/platform/main.js`) killed with SIGKILL in the middle of a 2,000-task run,
 * then started again on the same database and data directory: it converges with no task lost,
 * duplicated or left `running` (the killed process's claims come back when their lease ends).
 */
describe.each(DIALECTS)('a server killed mid-run (%s)', (dialect) => {
  let scratch: ScratchDb;
  let fleet: Fleet | undefined;
  const procs: Spawned[] = [];
  beforeAll(requireBuild);
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const d of fleet?.devices ?? []) await d.sim.stop();
    await scratch?.drop();
  });

  test('SIGKILL after some pushes, restart → every device holds exactly its people, every task succeeded', async () => {
    scratch = await scratchDb(dialect);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const username = `crash-admin-${dialect}`;
    const seed = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    fleet = await seedFleet(seed, {
      people: PEOPLE,
      devices: DEVICES,
      centralUrl: url,
      heartbeatIntervalMs: 500,
    });
    await signedIn(seed, 'admin', username);
    await seed.stop();
    const db = scratch.db;
    const env: Record<string, string> = {
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      DATA_DIR: scratch.dataDir,
      SVC_DISCOVERY_WORKER: '0',
      SVC_PUSH_WORKER: '1',
      SVC_PUSH_INTERVAL: '1',
      LOG_LEVEL: 'warn',
      ...(db.dialect === 'mysql' && {
        DB_HOST: db.host,
        DB_PORT: String(db.port),
        DB_USER: db.user,
        DB_PASSWORD: db.password,
        DB_DATABASE: db.database,
      }),
    };
    const held = () => fleet!.devices.reduce((n, d) => n + Object.keys(d.sim.persons()).length, 0);

    const first = spawnNode(MAIN, [], env);
    procs.push(first);
    await waitForOwnHeartbeat(first, url, 60_000);
    await until('a fifth of the pushes', () => held() >= TOTAL / 5);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = held();
    expect(atKill).toBeLessThan(TOTAL);
    // What the killed process left behind: claims of a dead process and work not yet done.
    const between = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    const left = await between.ctx.models.SyncTask.count({
      where: { state: ['running', 'pending'] },
    });
    const running = await between.ctx.models.SyncTask.count({ where: { state: 'running' } });
    await between.stop();
    expect(left).toBeGreaterThan(0);

    const second = spawnNode(MAIN, [], env);
    procs.push(second);
    await waitForOwnHeartbeat(second, url, 60_000);
    const admin = new TestClient(url);
    expect((await admin.login(username, SIGNED_IN_PASSWORD)).status).toBe(200);
    await until('all tasks succeeded', async () => {
      for (const d of fleet!.devices) {
        const summary = deviceSyncOut.parse((await admin.get(`/api/sync/devices/${d.id}`)).body);
        if (summary.counts.succeeded !== PEOPLE) return false;
      }
      return true;
    });
    for (const d of fleet.devices) expect(holdings(d.sim).size).toBe(PEOPLE);
    // A clean stop lets the worker finish what it holds; then the database is read directly.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const check = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    try {
      await expectConverged(check, fleet);
    } finally {
      await check.stop();
    }
    process.stdout.write(
      `[sync crash ${dialect}] devices held ${atKill} of ${TOTAL} people when the server was killed; ${running} tasks were left running\n`,
    );
  }, 240_000);
});
