import { settingsOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { signedIn } from '../test/admins.js';
import { TestClient } from '../test/http-client.js';

describe.each(DIALECTS)('GET /api/settings on %s', (dialect) => {
  const suite = suiteServer(dialect);

  test('shows the event retention as changed and the session timeouts; needs a session', async () => {
    expect((await new TestClient(suite.server.url).get('/api/settings')).status).toBe(401);
    const operator = await signedIn(suite.server, 'operator');
    expect((await operator.get('/api/settings')).body).toMatchObject({
      eventRetentionDays: 90,
      sessions: { idleTimeoutMinutes: 30, absoluteTimeoutMinutes: 720 },
    });
    const admin = await signedIn(suite.server, 'admin');
    expect((await admin.post('/api/recognition/retention', { days: 14 })).status).toBe(200);
    expect((await operator.get('/api/settings')).body).toMatchObject({ eventRetentionDays: 14 });
  });

  test('the site time zone: the server’s by default, a superadmin’s choice for everyone, in every session', async () => {
    const operator = await signedIn(suite.server, 'operator');
    const server_zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const before = settingsOut.parse((await operator.get('/api/settings')).body);
    expect(before.timeZone).toEqual({
      timeZone: server_zone,
      serverTimeZone: server_zone,
      chosen: false,
    });
    expect((await operator.get('/api/auth/me')).body).toMatchObject({
      user: { timeZone: server_zone },
    });

    // One zone for every organization: an organization's administrator may not change it.
    const admin = await signedIn(suite.server, 'admin');
    const body = { timeZone: 'Asia/Shanghai' };
    expect(
      (await admin.request('PUT', '/api/settings/time-zone', { body, csrf: true })).status,
    ).toBe(403);

    const superadmin = await signedIn(suite.server, 'superadmin');
    const chosen = await superadmin.request('PUT', '/api/settings/time-zone', { body, csrf: true });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toEqual({
      timeZone: 'Asia/Shanghai',
      serverTimeZone: server_zone,
      chosen: true,
    });
    expect(settingsOut.parse((await operator.get('/api/settings')).body).timeZone.timeZone).toBe(
      'Asia/Shanghai',
    );
    expect((await operator.get('/api/auth/me')).body).toMatchObject({
      user: { timeZone: 'Asia/Shanghai' },
    });
    const audits = await suite.server.ctx.models.Audit.findAll({
      where: { action: 'settings.time_zone_change' },
    });
    expect(audits).toHaveLength(1);
    // The change as a code and its values, for the audit page's language (issue 34).
    expect(JSON.parse(audits[0]!.summaryMessage!)).toEqual({
      code: 'time_zone_changed',
      params: { before: server_zone, after: 'Asia/Shanghai', chosen: 'true' },
    });

    // null: the server's own again.
    const reset = await superadmin.request('PUT', '/api/settings/time-zone', {
      body: { timeZone: null },
      csrf: true,
    });
    expect(reset.body).toMatchObject({ timeZone: server_zone, chosen: false });
  });

  test('a time zone the runtime does not know is refused with the field’s code, and nothing changes', async () => {
    const superadmin = await signedIn(suite.server, 'superadmin');
    for (const timeZone of ['Mars/Olympus_Mons', 'Asia/Shanghai; DROP TABLE', '']) {
      const refused = await superadmin.request('PUT', '/api/settings/time-zone', {
        body: { timeZone },
        csrf: true,
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: {
          code: 'invalid_input',
          fieldCodes: { timeZone: { code: timeZone === '' ? 'required' : 'time_zone' } },
        },
      });
    }
    expect(settingsOut.parse((await superadmin.get('/api/settings')).body).timeZone.chosen).toBe(
      false,
    );
  });
});
