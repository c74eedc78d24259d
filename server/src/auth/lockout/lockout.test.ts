import { loginLockoutList } from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { SIGNED_IN_PASSWORD, signedIn } from '../../test/admins.js';
import { TestClient, errorCode } from '../../test/http-client.js';
import {
  createAdministrator,
  createOrganization,
  seededOrganizationId,
  signedInAt,
} from '../../test/org-fixtures.js';

/**
 * Issue 20 finding 6, against a real server: parallel wrong passwords for one username are
 * counted before the password is checked, so no more than the limit are evaluated; and an
 * attacker who knows only the username cannot keep its owner out.
 */
describe.each(DIALECTS)('sign-in lockouts on %s', (dialect) => {
  let org: string;
  const clock = new ManualClock(new Date());

  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    org = await seededOrganizationId(suite.server);
  });

  /** A browser at `address` (svc_web, a trusted proxy, passes it in X-Forwarded-For). */
  const browserAt = (address: string) =>
    new TestClient(suite.server.url, { 'x-forwarded-for': address });

  /** `n` clients at one address, each with its CSRF token already, so they start together. */
  async function attackers(n: number, address: string): Promise<TestClient[]> {
    const clients = Array.from({ length: n }, () => browserAt(address));
    await Promise.all(clients.map((c) => c.csrf()));
    return clients;
  }

  test('60 simultaneous wrong passwords: 10 are evaluated, 50 get 429 with Retry-After', async () => {
    await createAdministrator(suite.server, org, 'admin', 'race');
    const clients = await attackers(60, '203.0.113.60');
    const replies = await Promise.all(
      clients.map((c, i) => c.login('race', `wrong password number ${i}`)),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(50);
    for (const reply of limited) {
      expect(errorCode(reply)).toBe('rate_limited');
      const wait = Number(reply.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
    }
    const evaluated = await suite.server.ctx.models.Audit.count({
      where: { action: 'auth.login', outcome: 'failure', actorName: 'race' },
    });
    expect(evaluated).toBe(10);
  });

  test('the owner signs in from the browser that signed in before; untrusted clients wait', async () => {
    await createAdministrator(suite.server, org, 'admin', 'owner');
    const owner = browserAt('198.51.100.7');
    const first = await owner.login('owner', SIGNED_IN_PASSWORD);
    expect(first.status).toBe(200);
    const cookie = first.setCookies.find((l) => l.startsWith('svc_device_'))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/auth\/login/);
    expect(cookie).not.toContain('owner');

    // Someone who knows only the username, from another address, tries 40 passwords at once.
    const clients = await attackers(40, '203.0.113.61');
    const replies = await Promise.all(clients.map((c, i) => c.login('owner', `guess ${i}`)));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(10);

    // Any client without the owner's device cookie is locked out, even with the password…
    expect((await browserAt('198.51.100.8').login('owner', SIGNED_IN_PASSWORD)).status).toBe(429);
    // …and so is one with a tampered or a foreign cookie.
    const name = cookie.split('=')[0]!;
    const forged = browserAt('198.51.100.7');
    forged.setCookie(name, `${owner.cookie(name)!.slice(0, -4)}AAAA`);
    expect((await forged.login('owner', SIGNED_IN_PASSWORD)).status).toBe(429);
    // The owner's browser signs in.
    const again = await owner.login('owner', SIGNED_IN_PASSWORD);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ user: { username: 'owner' } });
  });

  test("a device cookie's own failures lock that cookie only", async () => {
    await createAdministrator(suite.server, org, 'admin', 'holder');
    const browser = browserAt('198.51.100.20');
    expect((await browser.login('holder', SIGNED_IN_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await browser.login('holder', `typo ${i}`)).status).toBe(401);
    }
    const locked = await browser.login('holder', SIGNED_IN_PASSWORD);
    expect(locked.status).toBe(429);
    // The account is not locked for anyone else.
    expect((await browserAt('198.51.100.21').login('holder', SIGNED_IN_PASSWORD)).status).toBe(200);
  });

  test('administrators list lockouts and clear them, audited; operators and other organizations cannot', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const list = await admin.get('/api/auth/lockouts');
    expect(list.status).toBe(200);
    const items = loginLockoutList.parse(list.body).items;
    const race = items.find((l) => l.scope === 'username' && l.username === 'race');
    expect(race).toMatchObject({ failures: 10, address: null });
    expect(Date.parse(race!.lockedUntil)).toBeGreaterThan(clock.now().getTime());
    expect(items.find((l) => l.scope === 'device' && l.username === 'holder')).toBeDefined();
    // Address lockouts are for superadmins only.
    expect(items.some((l) => l.scope === 'address')).toBe(false);

    const operator = await signedIn(suite.server, 'operator');
    expect((await operator.get('/api/auth/lockouts')).status).toBe(403);
    const elsewhere = await signedInAt(
      suite.server,
      await createOrganization(suite.server, 'Other'),
      'admin',
    );
    const theirs = loginLockoutList.parse((await elsewhere.get('/api/auth/lockouts')).body);
    expect(theirs.items.some((l) => l.username === 'race')).toBe(false);
    expect(
      (await elsewhere.request('DELETE', '/api/auth/lockouts/race', { csrf: true })).status,
    ).toBe(404);

    const cleared = await admin.request('DELETE', '/api/auth/lockouts/race', { csrf: true });
    expect(cleared.status).toBe(204);
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'admin.unlock' },
      order: [['at', 'DESC']],
    });
    const me = (await admin.get('/api/auth/me')).body as { user: { id: string; username: string } };
    expect(audit).toMatchObject({ actorId: me.user.id, actorName: me.user.username });
    expect(audit!.summary).toContain('race');
    const after = loginLockoutList.parse((await admin.get('/api/auth/lockouts')).body);
    expect(after.items.some((l) => l.username === 'race' && l.scope === 'username')).toBe(false);
    expect((await browserAt('198.51.100.30').login('race', SIGNED_IN_PASSWORD)).status).toBe(200);
  });

  test('a superadmin also sees address lockouts', async () => {
    const clients = await attackers(35, '203.0.113.99');
    // Spraying many usernames from one address: the address limit (30 a minute) stops it.
    const replies = await Promise.all(clients.map((c, i) => c.login(`spray${i}`, 'guess')));
    expect(replies.filter((r) => r.status === 401)).toHaveLength(30);
    const superadmin = await signedIn(suite.server, 'superadmin');
    const items = loginLockoutList.parse((await superadmin.get('/api/auth/lockouts')).body).items;
    expect(items).toContainEqual(
      expect.objectContaining({ scope: 'address', address: '203.0.113.99', failures: 30 }),
    );
  });
});
