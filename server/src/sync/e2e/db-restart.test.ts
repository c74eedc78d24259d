import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DbConfig } from '../../platform/config/config.js';
import { ThrowawayMariaDb, throwawayUnavailable } from '../../test/mariadb-instance.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { expectConverged, holdings, seedFleet, type Fleet } from '../../test/sync-fleet.js';
import { until } from '../../test/wait.js';

/**
 * The database restarted under a running server in the middle of a 2,000-task run. MariaDB
 * only by nature: SQLite is a file inside the server process, with no separate database
 * process to restart (a killed server is crash.test.ts).
 */
const unavailable = throwawayUnavailable();
if (unavailable && process.env.CI)
  throw new Error(`database restart test cannot run: ${unavailable}`);
const maybe = unavailable ? describe.skip : describe;
if (unavailable) process.stdout.write(`[svc] SKIPPED sync database restart test: ${unavailable}\n`);

const PEOPLE = 1000;
const DEVICES = 2;
const TOTAL = PEOPLE * DEVICES;

maybe('sync across a database restart (throwaway mariadbd)', () => {
  let maria: ThrowawayMariaDb;
  let dataDir: string;
  let db: DbConfig;
  let server: TestServer | undefined;
  let fleet: Fleet | undefined;

  beforeAll(async () => {
    maria = await ThrowawayMariaDb.create();
    db = await maria.appAccount();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-sync-dbrestart-'));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    for (const d of fleet?.devices ?? []) await d.sim.stop();
    await maria?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('mariadbd stopped and started mid-run → converges, nothing lost, duplicated or stuck', async () => {
    const seed = await startTestServer({ db, dataDir });
    fleet = await seedFleet(seed, {
      people: PEOPLE,
      devices: DEVICES,
      centralUrl: 'http://127.0.0.1:9',
      heartbeatIntervalMs: 500,
    });
    await seed.stop();
    server = await startTestServer({
      db,
      dataDir,
      env: { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: '1' },
    });
    for (const d of fleet.devices) await d.sim.setConnection({ centralUrl: server.url });
    const held = () => fleet!.devices.reduce((n, d) => n + holdings(d.sim).size, 0);

    await until('a fifth of the pushes', () => held() >= TOTAL / 5);
    await maria.stop();
    const atStop = held();
    const down = await fetch(`${server.url}/api/heartbeat`);
    expect(down.status).toBe(503);
    await maria.start();

    const { SyncTask } = server.ctx.models;
    await until('all tasks succeeded', async () => {
      try {
        return (await SyncTask.count({ where: { state: 'succeeded' } })) === TOTAL;
      } catch {
        return false; // the pool is still reconnecting
      }
    });
    expect(atStop).toBeLessThan(TOTAL);
    await expectConverged(server, fleet);
    const failedRuns = server.logs.lines.filter((l) => l.msg === 'sync run failed').length;
    process.stdout.write(
      `[sync db restart] devices held ${atStop} of ${TOTAL} people when mariadbd stopped; ${failedRuns} worker run(s) failed during the outage\n`,
    );
  }, 240_000);
});
