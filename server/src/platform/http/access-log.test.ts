import { deviceWithKey } from '@svc/shared';
import { scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { signedIn } from '../../test/admins.js';
import type { TestClient } from '../../test/http-client.js';

/**
 * Issue 20 finding 11: a line per request at info, under 300 bytes, without headers; polls
 * from trusted addresses at debug. Asserted on the log output of a real server (the database
 * does not matter here: SQLite).
 */
describe('access log', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  /** The same database behind a server whose TRUSTED_NETWORKS excludes 127.0.0.1. */
  let untrusted: TestServer;
  let admin: TestClient;

  beforeAll(async () => {
    scratch = await scratchDb('sqlite');
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    untrusted = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { TRUSTED_NETWORKS: '192.0.2.0/24' },
    });
    admin = await signedIn(server, 'admin');
  });
  afterAll(async () => {
    await untrusted?.stop();
    await server?.stop();
    await scratch?.drop();
  });

  /** The access lines (raw and parsed) of one request, by its id. */
  const linesNow = (s: TestServer, reqId: string) =>
    s.logs.raw.flatMap((raw, i) => {
      const line = s.logs.lines[i]!;
      return line.msg === 'request' && line.reqId === reqId.slice(0, 36) ? [{ raw, line }] : [];
    });
  /** The line is written when the response closes, just after the client has the answer. */
  const linesOf = async (s: TestServer, reqId: string) => {
    for (let i = 0; i < 100 && linesNow(s, reqId).length === 0; i++) {
      await new Promise(setImmediate);
    }
    return linesNow(s, reqId);
  };

  test('one short info line with method, path without query, status, duration, id and user', async () => {
    const reply = await admin.request('GET', '/api/people?q=Jane%20Doe&limit=5', {
      headers: { 'user-agent': 'x'.repeat(900), 'accept-language': 'en-GB,en;q=0.9' },
    });
    expect(reply.status).toBe(200);
    const reqId = reply.headers.get('x-request-id')!;
    const lines = await linesOf(server, reqId);
    expect(lines).toHaveLength(1);
    const { raw, line } = lines[0]!;
    const me = (await admin.get('/api/auth/me')).body as { user: { id: string } };
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      path: '/api/people',
      status: 200,
      user: me.user.id,
    });
    expect(typeof line.ms).toBe('number');
    expect(Buffer.byteLength(raw)).toBeLessThan(300);
    // No header, cookie or query reaches the line.
    expect(raw).not.toMatch(/Jane|user-agent|xxxx|cookie|en-GB/i);
  });

  test('the longest line (client-chosen 64-character id, long path, signed in) stays under 300 bytes', async () => {
    const reqId = 'r'.repeat(64);
    const path = `/api/people/${'a'.repeat(200)}`;
    const reply = await admin.request('DELETE', path, {
      csrf: true,
      headers: { 'x-request-id': reqId },
    });
    expect(reply.headers.get('x-request-id')).toBe(reqId);
    const lines = await linesOf(server, reqId);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.line).toMatchObject({ level: 30, method: 'DELETE' });
    expect(Buffer.byteLength(lines[0]!.raw)).toBeLessThan(300);
  });

  test('an unauthenticated request logs user null', async () => {
    const reply = await fetch(`${server.url}/api/organizations`);
    expect(reply.status).toBe(401);
    const [entry] = await linesOf(server, reply.headers.get('x-request-id')!);
    expect(entry?.line).toMatchObject({ level: 30, status: 401, user: null });
  });

  test('heartbeats and device heartbeats from trusted addresses at debug, from others at info', async () => {
    const device = deviceWithKey.parse(
      (
        await admin.post('/api/devices', {
          sn: 'LOG-1',
          name: 'Turnstile log',
          baseUrl: 'http://10.20.0.61:8190',
        })
      ).body,
    );
    const beat = (url: string) =>
      fetch(`${url}/api/device/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${device.key}` },
        body: JSON.stringify({ sn: 'LOG-1' }),
      });
    const levelOf = async (s: TestServer, res: Response) => {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const lines = await linesOf(s, res.headers.get('x-request-id')!);
      return lines.map((l) => l.line.level);
    };
    expect(await levelOf(server, await fetch(`${server.url}/api/heartbeat`))).toEqual([20]);
    expect(await levelOf(server, await beat(server.url))).toEqual([20]);
    expect(await levelOf(untrusted, await fetch(`${untrusted.url}/api/heartbeat`))).toEqual([30]);
    expect(await levelOf(untrusted, await beat(untrusted.url))).toEqual([30]);
  });
});
