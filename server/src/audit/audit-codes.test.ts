import { readFileSync } from 'node:fs';
import path from 'node:path';
import { twoFactorEnabled, twoFactorSetup } from '@svc/shared';
import { ManualClock } from '../platform/clock.js';
import { codeAt } from '../auth/two-factor/codes.js';
import { SIGNED_IN_PASSWORD } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import { TestClient } from '../test/http-client.js';
import { plainJpeg, putPhoto } from '../test/images.js';
import { finished, upload } from '../test/imports.js';
import { createAdministrator, seededOrganizationId } from '../test/org-fixtures.js';

/** The site's audit summaries by code, in one language (web/src/locales). */
function siteSummaries(language: 'en' | 'zh-CN'): Record<string, string> {
  const file = path.resolve(import.meta.dirname, `../../../web/src/locales/${language}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { audit: { summary: Record<string, string> } })
    .audit.summary;
}

/**
 * Issue 34 item 4: the audit entries written by sign-in and its protections (lockout, two-factor,
 * passwords), imports and exports, and photos carry their summary as a code and values, like
 * every other writer, and the site has words for each code in both languages; a zh-CN session
 * never falls back to the stored English.
 */
describe.each(DIALECTS)('audit summaries of auth, bulk and photos on %s', (dialect) => {
  let server: TestServer;
  let org: string;
  const clock = new ManualClock(new Date('2026-11-28T04:00:10.000Z'));

  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    server = suite.server;
    org = await seededOrganizationId(server);
  });

  const client = () => new TestClient(server.url);

  test('every entry has a code the site words in en and zh-CN', async () => {
    await createAdministrator(server, org, 'superadmin', 'chief');
    await createAdministrator(server, org, 'admin', 'victim');
    const gone = await createAdministrator(server, org, 'admin', 'gone');
    await server.ctx.models.Administrator.update({ disabled: true }, { where: { id: gone } });

    // Sign-in: wrong, unknown, disabled, locked out, cleared; then right.
    expect((await client().login('chief', 'not the password')).status).toBe(401);
    expect((await client().login('nobody-here', 'not the password')).status).toBe(401);
    expect((await client().login('gone', SIGNED_IN_PASSWORD)).status).toBe(401);
    let limited = 0;
    for (let i = 0; i < 12; i++) {
      if ((await client().login('victim', `wrong ${i}`)).status === 429) limited++;
    }
    expect(limited).toBeGreaterThan(0);
    const chief = client();
    expect((await chief.login('chief', SIGNED_IN_PASSWORD)).status).toBe(200);
    expect(
      (await chief.request('DELETE', '/api/auth/lockouts/victim', { csrf: true })).status,
    ).toBe(204);

    // Passwords: a wrong current one, a change, the operator's reset.
    const newPassword = 'copper lantern meadow ninety';
    expect(
      (
        await chief.post('/api/auth/password', {
          currentPassword: 'not the password',
          newPassword,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await chief.post('/api/auth/password', {
          currentPassword: SIGNED_IN_PASSWORD,
          newPassword,
        })
      ).status,
    ).toBe(204);
    await server.ctx.accounts.resetPassword('victim', 'operator');

    // Two-factor: setup (a wrong password first), a wrong and a right code, the requirement,
    // sign-in with a wrong code, an app code and a recovery code, a reset.
    expect((await chief.post('/api/auth/2fa/setup', { password: 'wrong' })).status).toBe(401);
    const setup = await chief.post('/api/auth/2fa/setup', { password: newPassword });
    const { secret } = twoFactorSetup.parse(setup.body);
    expect((await chief.post('/api/auth/2fa/enable', { code: '000000' })).status).not.toBe(200);
    const enabled = await chief.post('/api/auth/2fa/enable', {
      code: codeAt(secret, clock.now().getTime()),
    });
    const { recoveryCodes } = twoFactorEnabled.parse(enabled.body);
    clock.advance(30_000);
    for (const required of [true, false]) {
      const put = await chief.request('PUT', '/api/settings/two-factor', {
        body: { required },
        csrf: true,
      });
      expect(put.status).toBe(200);
    }
    const login = (code: string) =>
      client().post('/api/auth/login', { username: 'chief', password: newPassword, code });
    expect((await login('000000')).status).toBe(401);
    expect((await login(codeAt(secret, clock.now().getTime()))).status).toBe(200);
    expect((await login(recoveryCodes[0]!)).status).toBe(200);
    const victim = (await server.ctx.models.Administrator.findOne({
      where: { username: 'victim' },
    }))!;
    expect(
      (
        await chief.request('DELETE', `/api/administrators/${victim.id}/two-factor`, {
          csrf: true,
        })
      ).status,
    ).toBe(204);

    // Bulk and photos: an import, an export, a photo set and set again.
    const started = await upload(chief, { csv: 'name,idNumber\nCoded One,CODE-A\n' });
    expect(started.status).toBe(202);
    expect((await finished(chief, started.body.id)).state).toBe('succeeded');
    expect((await chief.get('/api/exports/people.csv')).status).toBe(200);
    const person = (await server.ctx.models.Person.findOne({ where: { idNumber: 'CODE-A' } }))!;
    const photo = await plainJpeg(400, 500);
    expect((await putPhoto(chief, person.id, photo)).status).toBe(200);
    expect((await putPhoto(chief, person.id, photo)).status).toBe(200);
    expect((await chief.post('/api/auth/logout', {})).status).toBe(204);

    const rows = await server.ctx.models.Audit.findAll({ order: [['at', 'ASC']], raw: true });
    const uncoded = rows.filter((r) => r.summaryMessage === null).map((r) => r.action);
    expect(uncoded).toEqual([]);
    const codes = new Set(
      rows.map((r) => (JSON.parse(r.summaryMessage!) as { code: string }).code),
    );
    for (const code of [
      'sign_in_failed',
      'sign_in_disabled',
      'sign_in_locked_out',
      'lockout_cleared',
      'signed_in',
      'current_password_wrong',
      'password_changed',
      'password_reset_by_command',
      'two_factor_setup_started',
      'two_factor_enable_wrong_code',
      'two_factor_enabled',
      'two_factor_requirement',
      'two_factor_wrong',
      'recovery_code_used',
      'two_factor_reset',
      'import_finished',
      'people_exported',
      'photo_stored',
      'signed_out',
    ]) {
      expect(codes).toContain(code);
    }
    for (const language of ['en', 'zh-CN'] as const) {
      const worded = siteSummaries(language);
      expect([...codes].filter((code) => worded[code] === undefined)).toEqual([]);
    }
  });
});
