import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { signedIn } from '../test/admins.js';
import { TestClient } from '../test/http-client.js';

describe.each(DIALECTS)('GET /api/settings on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
  });

  test('shows the event retention as changed and the session timeouts; needs a session', async () => {
    expect((await new TestClient(server.url).get('/api/settings')).status).toBe(401);
    const operator = await signedIn(server, 'operator');
    expect((await operator.get('/api/settings')).body).toEqual({
      eventRetentionDays: 90,
      sessions: { idleTimeoutMinutes: 30, absoluteTimeoutMinutes: 720 },
    });
    const admin = await signedIn(server, 'admin');
    expect((await admin.post('/api/recognition/retention', { days: 14 })).status).toBe(200);
    expect((await operator.get('/api/settings')).body).toMatchObject({ eventRetentionDays: 14 });
  });
});
