import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';

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
});
