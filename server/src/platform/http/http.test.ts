import { Op } from 'sequelize';
import { errorBody, heartbeatResponse } from '@svc/shared';
import { scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { maskUnknownUsername } from '../../auth/accounts.js';

describe('HTTP core', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  beforeAll(async () => {
    scratch = await scratchDb('sqlite');
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
  });

  test('GET and POST /api/heartbeat answer state 1 with service information', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${server.url}/api/heartbeat`, { method });
      expect(res.status).toBe(200);
      const body = heartbeatResponse.parse(await res.json());
      expect(body).toMatchObject({
        state: 1,
        service: 'svc',
        database: { state: 'up', dialect: 'sqlite' },
      });
      expect(body.responseTimeMs).toBeGreaterThanOrEqual(0);
      expect(body.workers['session-cleanup']).toBe('running');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  test('the heartbeat writes no business data', async () => {
    const before = await server.ctx.models.Audit.count();
    await fetch(`${server.url}/api/heartbeat`, { method: 'POST' });
    expect(await server.ctx.models.Audit.count()).toBe(before);
  });

  test('security headers are set', async () => {
    const res = await fetch(`${server.url}/api/heartbeat`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test.each([
    ['unknown route', 'GET', '/api/nope', undefined, undefined, 404, 'not_found'],
    [
      'invalid JSON',
      'POST',
      '/api/auth/login',
      '{"username":',
      'application/json',
      400,
      'invalid_json',
    ],
    [
      'wrong media type',
      'POST',
      '/api/auth/login',
      'username=a',
      'application/x-www-form-urlencoded',
      415,
      'unsupported_media_type',
    ],
    [
      'too large',
      'POST',
      '/api/auth/login',
      JSON.stringify({ username: 'x'.repeat(40_000) }),
      'application/json',
      413,
      'payload_too_large',
    ],
  ])(
    '%s → %i with the PROTOCOL §0 body and no internals',
    async (_name, method, path, body, type, status, code) => {
      const c = new TestClient(server.url);
      const token = await c.csrf();
      const res = await c.request(method, path, {
        raw: body,
        headers: { ...(type && { 'content-type': type }), 'x-csrf-token': token },
      });
      expect(res.status).toBe(status);
      const parsed = errorBody.parse(res.body);
      expect(parsed.error.code).toBe(code);
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+|SELECT|sequelize/i);
    },
  );

  test('a badly encoded path is a 400, not a 500', async () => {
    const c = await signedIn(server, 'admin');
    for (const path of ['/api/people/%', '/api/people/%E0%A4%A', '/api/devices/%ZZ']) {
      const res = await c.get(path);
      expect(res.status).toBe(400);
      expect(errorBody.parse(res.body).error.code).toBe('invalid_input');
    }
  });

  test('validation errors name the fields', async () => {
    const c = new TestClient(server.url);
    const res = await c.post('/api/auth/login', { username: 7 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: {
        code: 'invalid_input',
        fields: { username: expect.any(String), password: expect.any(String) },
      },
    });
  });

  // An unknown username is audited masked, with a keyed pseudonym after '#'.
  const masked = (username: string) => ({
    actorName: { [Op.like]: `${maskUnknownUsername(username)}#%` },
  });
  test('X-Forwarded-For is believed only from a trusted proxy', async () => {
    const loopback = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { TRUSTED_PROXIES: '192.0.2.1/32' },
    });
    try {
      // 127.0.0.1 is not a trusted proxy here: its X-Forwarded-For is ignored.
      const c = new TestClient(loopback.url, { 'x-forwarded-for': '203.0.113.9' });
      await c.login('ghost-user', 'wrong wrong wrong');
      const row = await loopback.ctx.models.Audit.findOne({ where: masked('ghost-user') });
      expect(row?.ip).toBe('127.0.0.1');
    } finally {
      await loopback.stop();
    }
    const c = new TestClient(server.url, { 'x-forwarded-for': '203.0.113.10' });
    await c.login('ghost-user-2', 'wrong wrong wrong');
    const row = await server.ctx.models.Audit.findOne({ where: masked('ghost-user-2') });
    expect(row?.ip).toBe('203.0.113.10');
  });
});
