import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configureResponse } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { discoverySuite } from '../test/discovery-suite.js';
import { withServer } from '../test/suite.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { createTerminalClient } from './terminal-client.js';
import { waitFor } from '../test/wait.js';

describe.each(DIALECTS)('terminal configuration on %s', (dialect) => {
  const suite = discoverySuite(dialect, {
    infra: { terminalClient: createTerminalClient(800) },
  });

  const terminal = (
    id: string,
    kind: 'enrollment' | 'display',
    faults = {},
    managementKey?: string,
  ) => suite.terminal({ id, kind, faults, ...(managementKey !== undefined && { managementKey }) });

  const nodes = async () =>
    (await new TestClient(suite.server.url).get('/api/discovery/nodes')).body as {
      id: string;
      central: string;
      lastCheckin: string | null;
    }[];

  test('pushes the central address to both kinds, reads it back, and each terminal checks in', async () => {
    const enr = await terminal('ENR-OK', 'enrollment');
    const dsp = await terminal('DSP-OK', 'display');
    const admin = await signedIn(suite.server, 'admin');
    const reply = await admin.post('/api/discovery/configure', {
      ids: ['ENR-OK', 'DSP-OK'],
      centralUrl: suite.server.url,
      panelUrl: 'http://192.0.2.50:8181/api/recognition',
    });
    expect(reply.status).toBe(200);
    const { results } = configureResponse.parse(reply.body);
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['ENR-OK', true],
      ['DSP-OK', true],
    ]);
    for (const r of results) if (r.ok) expect(r.saved.centralUrl).toBe(suite.server.url);
    expect(enr.config().centralUrl).toBe(suite.server.url);
    expect(dsp.config().panelUrl).toBe('http://192.0.2.50:8181/api/recognition');

    // Each checked in with its new token, and announced its new central address after saving.
    const after = await waitFor(nodes, (list) =>
      ['ENR-OK', 'DSP-OK'].every((id) => {
        const n = list.find((x) => x.id === id);
        return n?.lastCheckin && n.central === suite.server.url;
      }),
    );
    expect(after.filter((n) => n.id.endsWith('-OK'))).toHaveLength(2);
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'discovery.configure', outcome: 'success' },
      }),
    ).toBe(2);
  });

  test('a terminal with a management key: refused without it, pushed with it, the key kept nowhere', async () => {
    const key = 'terminal-management-key-for-this-test';
    const t = await terminal('ENR-KEY', 'enrollment', {}, key);
    const admin = await signedIn(suite.server, 'admin');
    const without = configureResponse.parse(
      (
        await admin.post('/api/discovery/configure', {
          ids: ['ENR-KEY'],
          centralUrl: suite.server.url,
        })
      ).body,
    ).results[0];
    expect(without).toMatchObject({ ok: false, error: expect.stringMatching(/management key/) });
    expect(t.config().centralUrl).not.toBe(suite.server.url);
    const wrong = configureResponse.parse(
      (
        await admin.post('/api/discovery/configure', {
          ids: ['ENR-KEY'],
          centralUrl: suite.server.url,
          keys: { 'ENR-KEY': 'not-the-key' },
        })
      ).body,
    ).results[0];
    expect(wrong).toMatchObject({
      ok: false,
      error: expect.stringMatching(/refused its management key/),
    });
    const bad = await admin.post('/api/discovery/configure', {
      ids: ['ENR-KEY'],
      keys: { 'ENR-KEY': 'has spaces' },
    });
    expect(bad.status).toBe(400);
    const withKey = await admin.post('/api/discovery/configure', {
      ids: ['ENR-KEY'],
      centralUrl: suite.server.url,
      keys: { 'ENR-KEY': key },
    });
    expect(configureResponse.parse(withKey.body).results[0]).toMatchObject({ ok: true });
    expect(t.config().centralUrl).toBe(suite.server.url);
    await waitFor(nodes, (list) => list.some((n) => n.id === 'ENR-KEY' && n.lastCheckin));
    const audits = await suite.server.ctx.models.Audit.findAll({
      where: { action: 'discovery.configure' },
    });
    expect(JSON.stringify(audits.map((a) => a.toJSON()))).not.toContain(key);
  });

  test('a terminal token works until the next push replaces it', async () => {
    await terminal('ENR-TOK', 'enrollment');
    const checkin = (token: string, id = 'ENR-TOK') =>
      new TestClient(suite.server.url, { authorization: `Bearer ${token}` }).post(
        '/api/terminal/checkin',
        { id, kind: 'enrollment' },
        { csrf: false },
      );
    const first = 'first-token-0123456789abcdef';
    await suite.server.ctx.discovery.store.setToken('ENR-TOK', first);
    const ok = await checkin(first);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ serverTime: expect.any(String) });
    expect((await checkin(first, 'ENR-OK')).status).toBe(401);
    await suite.server.ctx.discovery.store.setToken('ENR-TOK', 'second-token-0123456789abcdef');
    expect((await checkin(first)).status).toBe(401);
    expect((await checkin('second-token-0123456789abcdef')).status).toBe(200);
    const none = await new TestClient(suite.server.url).post(
      '/api/terminal/checkin',
      { id: 'ENR-TOK', kind: 'enrollment' },
      { csrf: false },
    );
    expect(none.status).toBe(401);
  });

  test('failures are reported per node in plain words, never as a 5xx', async () => {
    await terminal('ENR-GOOD', 'enrollment');
    const refused = await terminal('ENR-REFUSE', 'enrollment');
    await terminal('DSP-500', 'display', { status500: true });
    await terminal('DSP-LIAR', 'display', { saveDifferent: true });
    await terminal('ENR-SLOW', 'enrollment', { delayMs: 2_000 });
    await refused.setFaults({ refuse: true });
    const admin = await signedIn(suite.server, 'admin');
    const reply = await admin.post('/api/discovery/configure', {
      ids: ['ENR-GOOD', 'ENR-REFUSE', 'DSP-500', 'DSP-LIAR', 'ENR-SLOW', 'GHOST-1'],
      centralUrl: suite.server.url,
    });
    expect(reply.status).toBe(200);
    const byId = Object.fromEntries(
      configureResponse.parse(reply.body).results.map((r) => [r.id, r]),
    );
    expect(byId['ENR-GOOD']).toMatchObject({ ok: true });
    expect(byId['ENR-REFUSE']).toMatchObject({
      ok: false,
      error: `connection refused at 127.0.0.1:${refused.port}`,
    });
    expect(byId['DSP-500']).toMatchObject({
      ok: false,
      error: expect.stringMatching(/answered HTTP 500/),
    });
    expect(byId['DSP-LIAR']).toMatchObject({
      ok: false,
      error: expect.stringMatching(/saved central address ".*" instead of/),
    });
    expect(byId['ENR-SLOW']).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no answer from 127\.0\.0\.1:\d+ within 0\.8 s/),
    });
    expect(byId['GHOST-1']).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not online/),
    });
    // Each failure also as a code and values, for the console's and site's language (issue 34).
    const detail = (id: string) => {
      const r = byId[id];
      return r && !r.ok ? [r.errorDetail?.code, r.errorDetail?.params] : null;
    };
    expect(detail('ENR-REFUSE')).toEqual([
      'terminal_unreachable',
      { where: `127.0.0.1:${refused.port}`, cause: 'ECONNREFUSED' },
    ]);
    expect(detail('DSP-500')?.[0]).toBe('terminal_http_status');
    expect(detail('DSP-LIAR')?.[0]).toBe('terminal_saved_other_central');
    expect(detail('ENR-SLOW')).toEqual([
      'terminal_no_answer',
      { where: expect.stringMatching(/^127\.0\.0\.1:\d+$/), seconds: 0.8 },
    ]);
    expect(detail('GHOST-1')).toEqual(['terminal_not_online', { id: 'GHOST-1', seconds: 45 }]);
  });

  test('a terminal answering with a redirect gets nothing, and neither does where it points', async () => {
    const elsewhere: string[] = [];
    const catcher = createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url}`);
      res.end('{}');
    });
    await new Promise<void>((r) => catcher.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(catcher.address() as AddressInfo).port}/api/config`;
    try {
      await terminal('ENR-REDIR', 'enrollment', { redirectTo: target });
      const admin = await signedIn(suite.server, 'admin');
      const reply = await admin.post('/api/discovery/configure', {
        ids: ['ENR-REDIR'],
        centralUrl: suite.server.url,
      });
      expect(reply.status).toBe(200);
      expect(configureResponse.parse(reply.body).results[0]).toMatchObject({
        ok: false,
        error: expect.stringMatching(
          /answered with a redirect \(HTTP 307\); redirects are refused/,
        ),
      });
      expect(elsewhere).toEqual([]);
      const row = await suite.server.ctx.models.DiscoveredNode.findByPk('ENR-REDIR');
      expect(row?.tokenHash ?? null).toBeNull();
    } finally {
      catcher.closeAllConnections();
      await new Promise((r) => catcher.close(r));
    }
  });

  test('only administrators on a trusted network, with the CSRF token, may configure', async () => {
    await terminal('ENR-AUTH', 'enrollment');
    const body = { ids: ['ENR-AUTH'], centralUrl: suite.server.url };
    expect(
      (await new TestClient(suite.server.url).post('/api/discovery/configure', body)).status,
    ).toBe(401);
    const operator = await signedIn(suite.server, 'operator');
    const denied = await operator.post('/api/discovery/configure', body);
    expect(denied.status).toBe(403);
    expect(errorCode(denied)).toBe('forbidden');
    const admin = await signedIn(suite.server, 'admin');
    const noCsrf = await admin.post('/api/discovery/configure', body, { csrf: false });
    expect(noCsrf.status).toBe(403);
    expect(errorCode(noCsrf)).toBe('csrf');
    const invalid = await admin.post('/api/discovery/configure', { ids: [] });
    expect(invalid.status).toBe(400);

    const env = { TRUSTED_NETWORKS: '192.0.2.0/24' };
    await withServer(suite.scratch, { env }, async (untrusted) => {
      const remote = await signedIn(untrusted, 'admin');
      const refused = await remote.post('/api/discovery/configure', body);
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe('untrusted_network');
    });
  });
});
