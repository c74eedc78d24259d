import { userResponse } from '@svc/shared';
import { ManualClock } from '../platform/clock.js';
import { suiteServer } from '../test/suite.js';
import { DIALECTS } from '../test/dialects.js';
import { TEST_ADMIN_PASSWORD } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';

const NEW_PASSWORD = 'correct lantern orbit meadow';

/** Issue 34: the site's language is kept with the administrator, not with the browser. */
describe.each(DIALECTS)('the administrator’s language on %s', (dialect) => {
  const clock = new ManualClock(new Date());

  const suite = suiteServer(dialect, { clock });

  test('a weak password answers its message code and values for a translation', async () => {
    const c = new TestClient(suite.server.url);
    expect((await c.login('admin', TEST_ADMIN_PASSWORD)).status).toBe(200);
    const short = await c.post('/api/auth/password', {
      currentPassword: TEST_ADMIN_PASSWORD,
      newPassword: 'short one',
    });
    expect(short.status).toBe(400);
    expect(errorCode(short)).toBe('weak_password');
    expect(short.body).toMatchObject({
      error: {
        message: 'Use at least 12 characters (a few unrelated words work well).',
        params: { reason: 'password_short', min: 12 },
        fieldCodes: { newPassword: { code: 'password_short', params: { min: 12 } } },
      },
    });
    const changed = await c.post('/api/auth/password', {
      currentPassword: TEST_ADMIN_PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status).toBe(204);
  });

  test('none until chosen; the choice is stored, follows to a new session, and can be undone', async () => {
    const c = new TestClient(suite.server.url);
    expect((await c.login('admin', NEW_PASSWORD)).status).toBe(200);
    const before = await c.get('/api/auth/me');
    expect(before.body).toMatchObject({ user: { language: null } });

    const chosen = await c.request('PUT', '/api/auth/me/language', {
      body: { language: 'zh-CN' },
      csrf: true,
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ user: { username: 'admin', language: 'zh-CN' } });

    // Another browser: a new session of the same account.
    const other = new TestClient(suite.server.url);
    const login = await other.login('admin', NEW_PASSWORD);
    expect(login.body).toMatchObject({ user: { language: 'zh-CN' } });

    const cleared = await other.request('PUT', '/api/auth/me/language', {
      body: { language: null },
      csrf: true,
    });
    expect(cleared.body).toMatchObject({ user: { language: null } });
    expect((await c.get('/api/auth/me')).body).toMatchObject({ user: { language: null } });
  });

  test('the answer to a choice of language keeps the organization the session works in', async () => {
    // The site shows the answer: without it a superadmin's switcher read "All organizations"
    // after a switch of language while every page stayed limited to the one chosen.
    const c = new TestClient(suite.server.url);
    expect((await c.login('admin', NEW_PASSWORD)).status).toBe(200);
    const me = userResponse.parse((await c.get('/api/auth/me')).body).user;
    const chosen = await c.request('PUT', '/api/auth/organization', {
      body: { organizationId: me.organizationId },
      csrf: true,
    });
    expect(chosen.status).toBe(200);
    try {
      const switched = await c.request('PUT', '/api/auth/me/language', {
        body: { language: 'en' },
        csrf: true,
      });
      expect(switched.status).toBe(200);
      const { user } = userResponse.parse(switched.body);
      expect(user.workingOrganizationId).toBe(me.organizationId);
    } finally {
      await c.request('PUT', '/api/auth/me/language', { body: { language: null }, csrf: true });
    }
  });

  test('a language the site does not speak is refused with the field’s code, and nothing changes', async () => {
    const c = new TestClient(suite.server.url);
    expect((await c.login('admin', NEW_PASSWORD)).status).toBe(200);
    const refused = await c.request('PUT', '/api/auth/me/language', {
      body: { language: 'fr' },
      csrf: true,
    });
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe('invalid_input');
    expect(refused.body).toMatchObject({
      error: { fieldCodes: { language: { code: 'invalid_choice' } } },
    });
    expect((await c.get('/api/auth/me')).body).toMatchObject({ user: { language: null } });
  });

  test('without a session the language cannot be set', async () => {
    const c = new TestClient(suite.server.url);
    const refused = await c.request('PUT', '/api/auth/me/language', {
      body: { language: 'en' },
      csrf: true,
    });
    expect(refused.status).toBe(401);
  });
});
