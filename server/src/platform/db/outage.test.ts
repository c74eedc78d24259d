import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ThrowawayMariaDb, throwawayUnavailable } from '../../test/mariadb-instance.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { waitFor } from '../../test/wait.js';
import type { DbConfig } from '../config/config.js';
import { FatalDatabaseError } from './errors.js';

const unavailable = throwawayUnavailable();
if (unavailable && process.env.CI)
  throw new Error(`database outage tests cannot run: ${unavailable}`);
const maybe = unavailable ? describe.skip : describe;
if (unavailable) process.stdout.write(`[svc] SKIPPED database outage tests: ${unavailable}\n`);

async function heartbeat(url: string): Promise<{ status: number; state: number; db: string }> {
  const res = await fetch(`${url}/api/heartbeat`);
  const body = (await res.json()) as { state: number; database: { state: string } };
  return { status: res.status, state: body.state, db: body.database.state };
}

maybe('database outages against a throwaway mariadbd', () => {
  let maria: ThrowawayMariaDb;
  let dataDir: string;
  let db: Extract<DbConfig, { dialect: 'mysql' }>;

  beforeAll(async () => {
    maria = await ThrowawayMariaDb.create();
    db = await maria.appAccount();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-outage-'));
  }, 60_000);
  afterAll(async () => {
    await maria?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('heartbeat goes to 503/state 0 when the database stops, and back to 1 without a restart', async () => {
    const server: TestServer = await startTestServer({ db, dataDir });
    try {
      expect(await heartbeat(server.url)).toEqual({ status: 200, state: 1, db: 'up' });
      await maria.stop();
      const down = await waitFor(
        () => heartbeat(server.url),
        (h) => h.state === 0,
        { ms: 30_000, everyMs: 200 },
      );
      expect(down).toEqual({ status: 503, state: 0, db: 'down' });
      // Business endpoints answer 503 with the error body, not a hang or a 500.
      const csrf = await fetch(`${server.url}/api/organizations`);
      expect([401, 503]).toContain(csrf.status);

      await maria.start();
      const up = await waitFor(
        () => heartbeat(server.url),
        (h) => h.state === 1,
        { ms: 30_000, everyMs: 200 },
      );
      expect(up).toEqual({ status: 200, state: 1, db: 'up' });
      const orgs = await fetch(`${server.url}/api/organizations`);
      expect(orgs.status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 90_000);

  test('an unreachable database at start is retried while the heartbeat reports it', async () => {
    await maria.stop();
    const server = await startTestServer({ db, dataDir, waitReady: false });
    try {
      const early = await heartbeat(server.url);
      expect(early).toEqual({ status: 503, state: 0, db: 'connecting' });
      const blocked = await fetch(`${server.url}/api/auth/csrf`);
      expect(blocked.status).toBe(503);
      expect(await blocked.json()).toMatchObject({ error: { code: 'database_unavailable' } });
      await maria.start();
      await server.ready;
      expect(await heartbeat(server.url)).toEqual({ status: 200, state: 1, db: 'up' });
    } finally {
      await server.stop();
    }
  }, 90_000);

  test('a wrong password against the existing data is fatal, with a message that says so', async () => {
    const server = await startTestServer({
      db: { ...db, password: 'not-the-password' },
      dataDir,
      waitReady: false,
    });
    try {
      const error = await server.ready.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(FatalDatabaseError);
      expect((error as Error).message).toMatch(/does not match the existing data/);
      expect((error as Error).message).not.toContain(db.password);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
