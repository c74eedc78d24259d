import { jest } from '@jest/globals';
import { heartbeatResponse } from '@svc/shared';
import { scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { realHost } from '../discovery/address.js';

/**
 * A plain GET of the heartbeat is answered ahead of Express (http/device-fast-path.ts): it must
 * say and log exactly what the general path says, and apply TRUSTED_NETWORKS to the caller
 * Express would name: a trusted proxy (svc_web) speaks for the client, nobody else does.
 */
describe('heartbeat ahead of Express', () => {
  let scratch: ScratchDb;
  let server: TestServer;

  beforeAll(async () => {
    scratch = await scratchDb('sqlite');
    // Loopback is a trusted proxy (the default) but not a trusted network here.
    server = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { TRUSTED_NETWORKS: '10.0.0.0/8' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${server.url}/api/heartbeat`, { method, headers });

  test('a caller outside TRUSTED_NETWORKS reads the summary; one a proxy vouches for, the details', async () => {
    const plain = await get();
    expect(plain.status).toBe(200);
    expect(Object.keys((await plain.json()) as object).sort()).toEqual([
      'responseTimeMs',
      'service',
      'state',
      'time',
    ]);
    const proxied = await get({ 'x-forwarded-for': '10.1.2.3' });
    expect(heartbeatResponse.parse(await proxied.json())).toMatchObject({ state: 1 });
  });

  test('a poll through svc_web is answered ahead of Express too, as Express would', async () => {
    const fast = jest.spyOn(server.api.fast, 'handle');
    try {
      const proxied = await get({ 'x-forwarded-for': '192.0.2.50, 10.1.2.3' });
      // The last address a trusted proxy (loopback) added is the caller: in TRUSTED_NETWORKS.
      expect(heartbeatResponse.parse(await proxied.json())).toMatchObject({ state: 1 });
      const outside = await get({ 'x-forwarded-for': '10.1.2.3, 192.0.2.50' });
      expect(Object.keys((await outside.json()) as object)).not.toContain('version');
      // Both answered by the fast path (true: Express never saw them).
      expect(fast.mock.results.map((r) => r.value)).toEqual([true, true]);
    } finally {
      fast.mockRestore();
    }
  });

  test('a proxy not in TRUSTED_PROXIES speaks for nobody', async () => {
    const untrusted = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { TRUSTED_NETWORKS: '10.0.0.0/8', TRUSTED_PROXIES: '192.0.2.1/32' },
    });
    try {
      const res = await fetch(`${untrusted.url}/api/heartbeat`, {
        headers: { 'x-forwarded-for': '10.1.2.3' },
      });
      expect(Object.keys((await res.json()) as object)).not.toContain('version');
    } finally {
      await untrusted.stop();
    }
  });

  test('both ways in answer with the same headers', async () => {
    const fast = await get({ 'x-request-id': 'hb-fast' });
    const general = await get({ 'x-request-id': 'hb-general' }, 'POST');
    const names = (r: Response) =>
      [...r.headers.keys()].filter((k) => !['date', 'content-length', 'etag'].includes(k)).sort();
    expect(names(fast)).toEqual(names(general));
    expect(fast.headers.get('x-request-id')).toBe('hb-fast');
    expect(fast.headers.get('cache-control')).toBe('no-store');
    expect(fast.headers.get('content-security-policy')).toBe(
      general.headers.get('content-security-policy'),
    );
  });

  test('each answer has its access line, at debug for nobody untrusted', async () => {
    await get({ 'x-request-id': 'hb-logged' });
    const line = server.logs.lines.find((l) => l.reqId === 'hb-logged');
    expect(line).toMatchObject({ msg: 'request', path: '/api/heartbeat', status: 200, level: 30 });
  });
});

test("the host's interfaces are read at most once a second", () => {
  expect(realHost.interfaces()).toBe(realHost.interfaces());
});
