import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { panelEvent, panelTestResult } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { TEST_DEVICE } from './test-connection.js';

describe.each(DIALECTS)('panel route on %s', (dialect) => {
  let scratch: ScratchDb;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
  });
  afterAll(async () => {
    await scratch.drop();
  });

  test('seeded from PANEL_URL once; administrators change it; operators and strangers cannot; it survives a restart with another PANEL_URL', async () => {
    const first = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { PANEL_URL: 'http://10.20.0.5:8181/api/recognition' },
    });
    const admin = await signedIn(first, 'admin');
    expect((await admin.get('/api/panel/route')).body).toEqual({
      mode: 'local',
      url: 'http://10.20.0.5:8181/api/recognition',
    });

    const operator = await signedIn(first, 'operator');
    expect((await operator.get('/api/panel/route')).status).toBe(200);
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
      const again = await signedIn(second, 'admin');
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
      const admin = await signedIn(server, 'admin');
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
    } finally {
      panel.close();
      await server.stop();
    }
  });
});
