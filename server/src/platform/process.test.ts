import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/mariadb-instance.js';
import { mysqlTarget } from '../test/dialects.js';
import {
  ADMIN_CLI,
  MAIN,
  PortTaken,
  requireBuild,
  spawnNode,
  waitForOwnHeartbeat,
} from '../test/process.js';
import { TestClient } from '../test/http-client.js';

/** The real built process, as `npm start` and the container run it. */
describe('svc_server process', () => {
  let dataDir: string;
  beforeAll(requireBuild);
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-proc-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function boot(extra: Record<string, string> = {}) {
    const port = await freePort();
    const env = {
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      DATA_DIR: dataDir,
      SVC_DISCOVERY_WORKER: '0',
      SVC_PUSH_WORKER: '0',
      ...extra,
    };
    const proc = spawnNode(MAIN, [], env);
    const url = `http://127.0.0.1:${port}`;
    return { proc, url, env };
  }

  test('fresh start: heartbeat state 1 quickly, a 0600 password file, SIGTERM shuts down in order', async () => {
    const { proc, url, env } = await boot({
      SVC_DISCOVERY_WORKER: '1',
      DISCOVERY_PORT: String(await freePort()),
    });
    const started = Date.now();
    const hb = await waitForOwnHeartbeat(proc, url, 60_000);
    expect(hb.state).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);

    const file = path.join(dataDir, 'initial-admin-password.txt');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const password = (await readFile(file, 'utf8')).trim();
    expect(proc.stdout()).toContain(file);
    expect(proc.stdout()).not.toContain(password);

    // The operator command: reset to a new random password in a 0600 file, forced change.
    const c = new TestClient(url);
    expect((await c.login('admin', password)).status).toBe(200);
    const reset = spawnNode(ADMIN_CLI, ['reset-password', 'admin'], env);
    expect(await reset.exited).toBe(0);
    const resetFile = path.join(dataDir, 'password-reset-admin.txt');
    expect(reset.stdout()).toContain(resetFile);
    expect((await stat(resetFile)).mode & 0o777).toBe(0o600);
    const fresh = (await readFile(resetFile, 'utf8')).trim();
    expect(reset.stdout()).not.toContain(fresh);
    expect((await c.get('/api/auth/me')).status).toBe(401); // sessions ended
    expect((await new TestClient(url).login('admin', password)).status).toBe(401);
    const again = await new TestClient(url).login('admin', fresh);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ user: { mustChangePassword: true } });

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    const steps = proc
      .stdout()
      .split('\n')
      .filter((l) => l.includes('shutdown step done'))
      .map((l) => (JSON.parse(l) as { step: string }).step);
    expect(steps).toEqual(['http', 'jobs', 'udp', 'database']);
  }, 90_000);

  test('heartbeats answered 503 during the first migrations are logged at info, with no stack', async () => {
    const { proc, url } = await boot();
    try {
      // Poll from the moment the process starts, as a load balancer's health check does.
      const statuses: number[] = [];
      for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
        const status = await fetch(`${url}/api/heartbeat`).then(
          (res) => res.status,
          () => 0, // not listening yet
        );
        if (status !== 0) statuses.push(status);
        if (status === 200) break;
        await sleep(20);
      }
      expect(statuses.at(-1)).toBe(200);
      const refused = statuses.filter((s) => s === 503).length;
      expect(refused).toBeGreaterThan(0); // the window was really polled

      const lines = proc
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map(
          (l) => JSON.parse(l) as { level: number; msg: string; status?: number; err?: unknown },
        );
      const logged503 = lines.filter((l) => l.msg === 'request' && l.status === 503);
      expect(logged503.length).toBe(refused);
      for (const line of logged503) {
        expect(line.level).toBe(30);
        expect(line.err).toBeUndefined();
      }
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(proc.stdout() + proc.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 90_000);

  test('the operator command unlocks an account locked by failed sign-ins', async () => {
    const { proc, url, env } = await boot({ ADMIN_INITIAL_PASSWORD: 'first-start-password-7' });
    try {
      await waitForOwnHeartbeat(proc, url, 60_000);
      for (let i = 0; i < 10; i++) await new TestClient(url).login('admin', `nope-${i}-nope-nope`);
      expect((await new TestClient(url).login('admin', 'first-start-password-7')).status).toBe(429);
      const unlock = spawnNode(ADMIN_CLI, ['unlock', 'admin'], env);
      expect(await unlock.exited).toBe(0);
      expect((await new TestClient(url).login('admin', 'first-start-password-7')).status).toBe(200);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 90_000);

  test.each([
    ['HTTP_PORT', 'eighty', /HTTP_PORT: must be a port number/],
    ['DISCOVERY_TIMEOUT', '-5', /DISCOVERY_TIMEOUT: must be a whole number of seconds/],
    ['SVC_PUSH_WORKER', 'maybe', /SVC_PUSH_WORKER: must be 1 or 0/],
    ['PANEL_URL', 'ftp://x', /PANEL_URL: must be an http/],
    ['DISCOVERY_HTTP_BASE_URL', 'http://10.0.0.2/app', /DISCOVERY_HTTP_BASE_URL: must be http/],
    ['TRUSTED_NETWORKS', '10.0.0.0/99', /TRUSTED_NETWORKS: must be a comma-separated list of CIDR/],
    ['ADMIN_INITIAL_PASSWORD', 'short', /ADMIN_INITIAL_PASSWORD: must be at least 12/],
  ])('invalid %s=%s stops at once naming the variable', async (name, value, message) => {
    const { proc } = await boot({ [name]: value });
    expect(await proc.exited).toBe(2);
    expect(proc.stderr()).toMatch(message);
    if (name === 'ADMIN_INITIAL_PASSWORD') expect(proc.stderr()).not.toContain(value);
  });

  test('a port another server took first: its heartbeat is not taken for this one', async () => {
    // Another suite's server answering state 1 on the port this one was given.
    const other = createServer((_req, res) => res.end(JSON.stringify({ state: 1 })));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as { port: number };
    try {
      const { proc } = await boot({ HTTP_PORT: String(port) });
      const url = `http://127.0.0.1:${port}`;
      await expect(waitForOwnHeartbeat(proc, url, 30_000)).rejects.toBeInstanceOf(PortTaken);
      expect(await proc.exited).toBe(1);
    } finally {
      other.close();
    }
  }, 40_000);

  const mysql = mysqlTarget();
  (mysql ? test : test.skip)(
    'a wrong DB_PASSWORD exits with a message that the password does not match',
    async () => {
      const { proc } = await boot({
        DB_HOST: mysql!.host,
        DB_PORT: String(mysql!.port),
        DB_USER: mysql!.user,
        DB_PASSWORD: 'definitely-not-the-password',
      });
      expect(await proc.exited).toBe(1);
      expect(proc.stderr()).toMatch(/does not match the existing data/);
      expect(proc.stderr() + proc.stdout()).not.toContain('definitely-not-the-password');
    },
    60_000,
  );
});
