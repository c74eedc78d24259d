import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';

const DIGEST = 'ab'.repeat(32);

describe.each(DIALECTS)('acceptance report digests on %s', (dialect) => {
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

  test('an administrator records a digest; it is in the audit log with who and the counts', async () => {
    const admin = await signedIn(server, 'admin', 'tech-anna');
    const saved = await admin.post('/api/acceptance/reports', {
      sha256: DIGEST,
      title: 'Acceptance of North gate',
      layers: 8,
      passed: 8,
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ recorded: true });
    const audit = await admin.get('/api/audit?pageSize=10');
    const entry = (audit.body as { items: Record<string, unknown>[] }).items.find(
      (item) => item.action === 'acceptance.report',
    );
    expect(entry).toMatchObject({
      actor: 'tech-anna',
      outcome: 'success',
      target: { type: 'acceptance_report', id: DIGEST },
    });
    expect(entry?.summary).toContain('8/8 layers passed');
    expect(entry?.summary).toContain(DIGEST);
  });

  test('bad digests and counts are refused and record nothing; operators and strangers cannot record', async () => {
    const admin = await signedIn(server, 'admin');
    const before = await server.ctx.models.Audit.count({ where: { action: 'acceptance.report' } });
    for (const body of [
      { sha256: 'AB'.repeat(32), title: 't', layers: 8, passed: 8 },
      { sha256: DIGEST.slice(1), title: 't', layers: 8, passed: 8 },
      { sha256: DIGEST, title: '', layers: 8, passed: 8 },
      { sha256: DIGEST, title: 't', layers: 8, passed: 9 },
    ]) {
      const bad = await admin.post('/api/acceptance/reports', body);
      expect(bad.status).toBe(400);
      expect(errorCode(bad)).toBe('invalid_input');
    }
    const operator = await signedIn(server, 'operator');
    const denied = await operator.post('/api/acceptance/reports', {
      sha256: DIGEST,
      title: 't',
      layers: 8,
      passed: 8,
    });
    expect(denied.status).toBe(403);
    const stranger = await new TestClient(server.url).post('/api/acceptance/reports', {
      sha256: DIGEST,
      title: 't',
      layers: 8,
      passed: 8,
    });
    expect([401, 403]).toContain(stranger.status);
    expect(await server.ctx.models.Audit.count({ where: { action: 'acceptance.report' } })).toBe(
      before,
    );
  });
});
