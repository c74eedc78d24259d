import { heartbeatResponse, heartbeatSummary } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { signedIn } from '../test/admins.js';
import { TestClient } from '../test/http-client.js';

/**
 * Issue 20 finding 7: the public heartbeat told anyone the version, the database dialect, the
 * workers and warnings such as "the database has no password". Requests come as svc_web sends
 * them: from 127.0.0.1 (a trusted proxy) with the browser's address in X-Forwarded-For.
 */
describe.each(DIALECTS)('heartbeat details (%s)', (dialect) => {
  const suite = suiteServer(dialect);
  beforeAll(() => {
    suite.server.ctx.warnings.push({
      code: 'database_no_password',
      params: {},
      message: 'DB_PASSWORD and DB_ROOT_PASSWORD are empty: the database has no password',
    });
  });

  const outside = { 'x-forwarded-for': '203.0.113.9' };

  test('an unauthenticated caller outside TRUSTED_NETWORKS reads state, service, time and response time only', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${suite.server.url}/api/heartbeat`, { method, headers: outside });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['responseTimeMs', 'service', 'state', 'time']);
      expect(heartbeatSummary.strict().parse(body)).toMatchObject({ state: 1, service: 'svc' });
      expect(JSON.stringify(body)).not.toMatch(/password|sqlite|mysql|running|version/);
    }
  });

  test('a session cookie that is not valid reads the summary too', async () => {
    const res = await fetch(`${suite.server.url}/api/heartbeat`, {
      headers: { ...outside, cookie: `svc_session=${'A'.repeat(43)}` },
    });
    expect(Object.keys((await res.json()) as object)).toHaveLength(4);
  });

  test('a signed-in administrator outside TRUSTED_NETWORKS reads the details', async () => {
    const admin = await signedIn(suite.server, 'operator');
    const browser = new TestClient(suite.server.url, outside);
    browser.setCookie('svc_session', admin.cookie('svc_session')!);
    const reply = await browser.get('/api/heartbeat');
    const body = heartbeatResponse.parse(reply.body);
    expect(body).toMatchObject({ state: 1, database: { state: 'up', dialect } });
    expect(body.warnings).toContain(
      'DB_PASSWORD and DB_ROOT_PASSWORD are empty: the database has no password',
    );
    // PROTOCOL §5 keeps the strings; the details say the same with a code (issue #34).
    expect(body.warningDetails?.map((w) => w.message)).toEqual(body.warnings);
    expect(body.warningDetails).toContainEqual({
      code: 'database_no_password',
      params: {},
      message: 'DB_PASSWORD and DB_ROOT_PASSWORD are empty: the database has no password',
    });
  });

  test("the seed's host check (127.0.0.1 through svc_web) and trusted networks read the details", async () => {
    for (const forwarded of ['127.0.0.1', '192.168.1.20', undefined]) {
      const res = await fetch(`${suite.server.url}/api/heartbeat`, {
        headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
      });
      expect(res.status).toBe(200);
      const body = heartbeatResponse.parse(await res.json());
      expect(body).toMatchObject({ state: 1, version: suite.server.ctx.version });
      expect(body.workers['session-cleanup']).toBe('running');
    }
  });
});
