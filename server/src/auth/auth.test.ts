import { ManualClock } from '../platform/clock.js';
import { suiteServer } from '../test/suite.js';
import { DIALECTS } from '../test/dialects.js';
import { TEST_ADMIN_PASSWORD } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { hashPassword } from './passwords.js';
import { IDLE_TIMEOUT_MS, ABSOLUTE_TIMEOUT_MS } from './sessions.js';

const NEW_PASSWORD = 'correct lantern orbit meadow';

describe.each(DIALECTS)('sessions and permissions on %s', (dialect) => {
  const clock = new ManualClock(new Date());

  const suite = suiteServer(dialect, { clock });

  const client = () => new TestClient(suite.server.url);

  async function createAdmin(username: string, role: 'admin' | 'operator', password: string) {
    const org = await suite.server.ctx.models.Organization.findOne();
    const now = clock.now();
    await suite.server.ctx.models.Administrator.create({
      id: crypto.randomUUID(),
      organizationId: org!.id,
      username,
      displayName: username,
      role,
      passwordHash: await hashPassword(password),
      mustChangePassword: false,
      disabled: false,
      passwordChangedAt: null,
      lastLoginAt: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  test('first sign-in forces a password change; then the new password works and the old fails', async () => {
    const c = client();
    const login = await c.login('admin', TEST_ADMIN_PASSWORD);
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ user: { username: 'admin', mustChangePassword: true } });

    const blocked = await c.get('/api/organizations');
    expect(blocked.status).toBe(403);
    expect(errorCode(blocked)).toBe('password_change_required');
    expect((await c.get('/api/auth/me')).status).toBe(200);

    const weak = await c.post('/api/auth/password', {
      currentPassword: TEST_ADMIN_PASSWORD,
      newPassword: 'password1234',
    });
    expect(weak.status).toBe(400);
    expect(errorCode(weak)).toBe('weak_password');

    const changed = await c.post('/api/auth/password', {
      currentPassword: TEST_ADMIN_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status).toBe(204);
    const orgs = await c.get('/api/organizations');
    expect(orgs.status).toBe(200);
    expect(orgs.body).toMatchObject({ total: 1, items: [{ name: 'Default organization' }] });

    const old = await client().login('admin', TEST_ADMIN_PASSWORD);
    expect(old.status).toBe(401);
    const fresh = await client().login('admin', NEW_PASSWORD);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ user: { mustChangePassword: false } });
  });

  test('session cookie is HttpOnly, SameSite=Strict, and a new id at every sign-in', async () => {
    await createAdmin('cookies', 'admin', NEW_PASSWORD);
    const c = client();
    const first = await c.login('cookies', NEW_PASSWORD);
    const line = first.setCookies.find((l) => l.startsWith('svc_session='))!;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Strict/);
    expect(line).not.toMatch(/Secure/);
    const firstId = c.cookie('svc_session');
    await c.login('cookies', NEW_PASSWORD);
    expect(c.cookie('svc_session')).not.toBe(firstId);
    // The earlier session was ended on the suite.server, not only replaced in the browser.
    const replay = new TestClient(suite.server.url);
    replay.setCookie('svc_session', firstId!);
    expect((await replay.get('/api/auth/me')).status).toBe(401);
  });

  test('cookie is Secure behind an HTTPS proxy that is trusted', async () => {
    await createAdmin('secure', 'admin', NEW_PASSWORD);
    const c = new TestClient(suite.server.url, { 'x-forwarded-proto': 'https' });
    const login = await c.login('secure', NEW_PASSWORD);
    expect(login.setCookies.find((l) => l.startsWith('svc_session='))).toMatch(/Secure/);
  });

  test('a state change with a session but without the CSRF token is refused', async () => {
    await createAdmin('csrf', 'admin', NEW_PASSWORD);
    const c = client();
    expect((await c.login('csrf', NEW_PASSWORD)).status).toBe(200);
    const noToken = await c.post('/api/auth/logout', undefined, { csrf: false });
    expect(noToken.status).toBe(403);
    expect(errorCode(noToken)).toBe('csrf');
    const forged = await c.post('/api/auth/logout', undefined, {
      csrf: false,
      headers: { 'x-csrf-token': `${c.cookie('svc_csrf')}.forged` },
    });
    expect(forged.status).toBe(403);
    expect((await c.get('/api/auth/me')).status).toBe(200);
    const noCsrfLogin = await client().post(
      '/api/auth/login',
      { username: 'csrf', password: NEW_PASSWORD },
      { csrf: false },
    );
    expect(noCsrfLogin.status).toBe(403);
  });

  test('logout ends the session on the server', async () => {
    await createAdmin('logout', 'admin', NEW_PASSWORD);
    const c = client();
    await c.login('logout', NEW_PASSWORD);
    const token = c.cookie('svc_session')!;
    expect((await c.post('/api/auth/logout')).status).toBe(204);
    const replay = client();
    replay.setCookie('svc_session', token);
    const me = await replay.get('/api/auth/me');
    expect(me.status).toBe(401);
  });

  test('unknown user and wrong password get the same answer', async () => {
    const unknown = await client().login('nobody-here', 'some wrong password');
    const wrong = await client().login('logout', 'some wrong password');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  test('the 11th wrong sign-in in a minute for one username gets 429 with Retry-After', async () => {
    await createAdmin('brute', 'admin', NEW_PASSWORD);
    for (let i = 1; i <= 10; i++) {
      // Different addresses, so only the per-username limit is in play.
      const c = new TestClient(suite.server.url, { 'x-forwarded-for': `10.9.0.${i}` });
      expect((await c.login('brute', `wrong password ${i}`)).status).toBe(401);
    }
    const eleventh = await client().login('brute', NEW_PASSWORD);
    expect(eleventh.status).toBe(429);
    expect(errorCode(eleventh)).toBe('rate_limited');
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.advance(61_000);
    expect((await client().login('brute', NEW_PASSWORD)).status).toBe(200);
  });

  test('idle and absolute timeouts end sessions', async () => {
    await createAdmin('timeouts', 'admin', NEW_PASSWORD);
    const c = client();
    await c.login('timeouts', NEW_PASSWORD);
    clock.advance(IDLE_TIMEOUT_MS - 60_000);
    expect((await c.get('/api/auth/me')).status).toBe(200);
    clock.advance(IDLE_TIMEOUT_MS + 1_000);
    const idle = await c.get('/api/auth/me');
    expect(idle.status).toBe(401);
    expect(errorCode(idle)).toBe('session_expired');

    const d = client();
    await d.login('timeouts', NEW_PASSWORD);
    for (let spent = 0; spent < ABSOLUTE_TIMEOUT_MS; spent += 20 * 60_000) {
      clock.advance(20 * 60_000);
      await d.get('/api/auth/me');
    }
    expect((await d.get('/api/auth/me')).status).toBe(401);
  });

  test('an operator reads but cannot change anything', async () => {
    await createAdmin('viewer', 'operator', NEW_PASSWORD);
    const c = client();
    await c.login('viewer', NEW_PASSWORD);
    expect((await c.get('/api/organizations')).status).toBe(200);
    const write = await c.post('/api/panel/route', { mode: 'local', url: '' });
    expect(write.status).toBe(403);
    expect(errorCode(write)).toBe('forbidden');
    expect((await c.get('/api/audit')).status).toBe(403);
  });

  test('disabling an administrator ends their sessions', async () => {
    await createAdmin('leaver', 'admin', NEW_PASSWORD);
    const c = client();
    await c.login('leaver', NEW_PASSWORD);
    await suite.server.ctx.models.Administrator.update(
      { disabled: true },
      { where: { username: 'leaver' } },
    );
    expect((await c.get('/api/auth/me')).status).toBe(401);
    expect((await client().login('leaver', NEW_PASSWORD)).status).toBe(401);
  });

  test('an unknown username (a password typed in the wrong field) is kept masked, a known one shown', async () => {
    const typed = 'S3cret-pass!';
    for (let i = 0; i < 2; i++) {
      expect((await client().login(typed, 'whatever it was')).status).toBe(401);
    }
    expect((await client().login('brute', 'not the password')).status).toBe(401);
    const audit = await suite.server.ctx.models.Audit.findAll({ where: { action: 'auth.login' } });
    const failures = await suite.server.ctx.models.LoginFailure.findAll();
    const everything = (
      JSON.stringify(audit) +
      JSON.stringify(failures) +
      suite.server.logs.text()
    ).toLowerCase();
    expect(everything).not.toContain(typed.toLowerCase());
    const masked = audit.filter((r) => r.actorName?.startsWith('s…(12)#'));
    expect(masked).toHaveLength(2);
    // The same name masks the same way, so repeated attempts are counted and read together.
    expect(masked[0]!.actorName).toBe(masked[1]!.actorName);
    expect(audit.some((r) => r.actorName === 'brute' && r.outcome === 'failure')).toBe(true);
  });

  test('every sign-in attempt is audited, and no password reaches the audit log or the logs', async () => {
    const rows = await suite.server.ctx.models.Audit.findAll({ where: { action: 'auth.login' } });
    const outcomes = new Set(rows.map((r) => r.outcome));
    expect(outcomes).toEqual(new Set(['success', 'failure', 'rate_limited']));
    const everything =
      JSON.stringify(await suite.server.ctx.models.Audit.findAll()) + suite.server.logs.text();
    expect(everything).not.toContain(TEST_ADMIN_PASSWORD);
    expect(everything).not.toContain(NEW_PASSWORD);
    expect(everything).not.toContain('wrong password 3');
  });
});
