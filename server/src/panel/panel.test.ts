import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { panelEvent, panelTestResult } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { createOrganization } from '../test/org-fixtures.js';
import { TEST_DEVICE } from './connection-check.js';

describe.each(DIALECTS)('panel route on %s', (dialect) => {
  let scratch: ScratchDb;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
  });
  afterAll(async () => {
    await scratch.drop();
  });

  test('seeded from PANEL_URL once; a superadmin changes it; strangers cannot; it survives a restart with another PANEL_URL', async () => {
    const first = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { PANEL_URL: 'http://10.20.0.5:8181/api/recognition' },
    });
    const admin = await signedIn(first, 'superadmin');
    expect((await admin.get('/api/panel/route')).body).toEqual({
      mode: 'local',
      url: 'http://10.20.0.5:8181/api/recognition',
    });

    const operator = await signedIn(first, 'operator');
    expect((await operator.get('/api/panel/route')).status).toBe(403);
    const denied = await operator.post('/api/panel/route', {
      mode: 'cloud',
      url: 'https://panel.example/in',
    });
    expect(denied.status).toBe(403);
    expect((await new TestClient(first.url).get('/api/panel/route')).status).toBe(401);

    const bad = await admin.post('/api/panel/route', { mode: 'remote', url: 'ftp://x' });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe('invalid_input');
    expect((await admin.get('/api/panel/route')).body).toMatchObject({ mode: 'local' });

    const saved = await admin.post('/api/panel/route', {
      mode: 'cloud',
      url: 'https://panel.example/in',
    });
    expect(saved.status).toBe(200);
    expect(await first.ctx.models.Audit.count({ where: { action: 'panel.route_change' } })).toBe(1);
    await first.stop();

    const second = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { PANEL_URL: 'http://10.99.0.1:8181/other' },
    });
    try {
      const again = await signedIn(second, 'superadmin');
      expect((await again.get('/api/panel/route')).body).toEqual({
        mode: 'cloud',
        url: 'https://panel.example/in',
      });
    } finally {
      await second.stop();
    }
  });

  test('Test connection sends a test event to the saved route and reports the answer or the reason', async () => {
    const received: unknown[] = [];
    let status = 200;
    const panel = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => panel.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(panel.address() as AddressInfo).port}/api/recognition`;
    const server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    try {
      const admin = await signedIn(server, 'superadmin');
      await admin.post('/api/panel/route', { mode: 'local', url: '' });
      const none = await admin.post('/api/panel/test', {});
      expect(panelTestResult.parse(none.body)).toMatchObject({ ok: false, url: '' });

      await admin.post('/api/panel/route', { mode: 'local', url });
      const ok = await admin.post('/api/panel/test', {});
      expect(ok.status).toBe(200);
      expect(panelTestResult.parse(ok.body)).toMatchObject({ ok: true, url });
      expect(received).toHaveLength(1);
      expect(panelEvent.parse(received[0])).toMatchObject({ person: null, device: TEST_DEVICE });

      status = 503;
      const refused = panelTestResult.parse((await admin.post('/api/panel/test', {})).body);
      expect(refused).toMatchObject({ ok: false, url });
      expect(refused.ok === false && refused.reason).toMatch(/503/);

      await new Promise<void>((resolve) => panel.close(() => resolve()));
      const down = panelTestResult.parse((await admin.post('/api/panel/test', {})).body);
      expect(down.ok === false && down.reason).toMatch(/refused|ECONNREFUSED/i);

      const operator = await signedIn(server, 'operator');
      expect((await operator.post('/api/panel/test', {})).status).toBe(403);
      expect(received).toHaveLength(2);
      // Each try is in the audit log with its outcome (the first-session checklist reads it).
      const tries = await server.ctx.models.Audit.findAll({
        where: { action: 'panel.test' },
        order: [['id', 'ASC']],
      });
      expect(tries.map((t) => t.outcome)).toEqual(['failure', 'success', 'failure', 'failure']);
      // With a code for the audit page's language (issue 34): no URL, answered, refused.
      expect(tries.map((t) => (JSON.parse(t.summaryMessage!) as { code: string }).code)).toEqual([
        'panel_test_no_url',
        'panel_tested',
        'panel_test_failed',
        'panel_test_failed',
      ]);
    } finally {
      panel.close();
      await server.stop();
    }
  });

  test("an organization's administrator can neither read, change nor test the shared route: 403 in words, nothing changes", async () => {
    const server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    try {
      const superadmin = await signedIn(server, 'superadmin');
      const route = { mode: 'local', url: 'http://10.20.0.7:8181/api/recognition' };
      expect((await superadmin.post('/api/panel/route', route)).status).toBe(200);
      const audited = () =>
        server.ctx.models.Audit.count({ where: { action: ['panel.route_change', 'panel.test'] } });
      const auditedBefore = await audited();
      const other = await createOrganization(server, `Other ${Date.now()}`);
      for (const admin of [
        await signedIn(server, 'admin'),
        await signedIn(server, 'admin', undefined, other),
      ]) {
        const replies = [
          await admin.get('/api/panel/route'),
          await admin.post('/api/panel/route', { mode: 'cloud', url: 'https://evil.example/in' }),
          await admin.post('/api/panel/test', {}),
        ];
        for (const reply of replies) {
          expect(reply.status).toBe(403);
          expect(errorCode(reply)).toBe('forbidden');
          expect(reply.body).toMatchObject({
            error: {
              message:
                'Only a super administrator can see or change the panel route: it is shared by every organization.',
              params: { reason: 'panel_route_superadmin_only' },
            },
          });
        }
      }
      expect((await superadmin.get('/api/panel/route')).body).toEqual(route);
      expect(await audited()).toBe(auditedBefore);
    } finally {
      await server.stop();
    }
  });
});
