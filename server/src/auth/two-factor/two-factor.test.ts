import { randomUUID } from 'node:crypto';
import {
  errorBody,
  twoFactorEnabled,
  twoFactorSetup,
  twoFactorStatus,
  userResponse,
} from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { SIGNED_IN_PASSWORD } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { TestClient, errorCode, type Reply } from '../../test/http-client.js';
import { createAdministrator, seededOrganizationId } from '../../test/org-fixtures.js';
import { ADMIN_CLI, requireBuild, spawnNode } from '../../test/process.js';
import { codeAt } from './codes.js';

/**
 * Issue 32, items 8 and 9, against a real server: enrolment, sign-in with a code, a recovery
 * code used once, the reset by the host command and by a superadmin, the requirement, and a
 * lockout that an outsider (without the password) cannot turn against the owner.
 */
describe.each(DIALECTS)('two-factor sign-in on %s', (dialect) => {
  let orgId: string;
  const clock = new ManualClock(new Date('2026-11-28T04:00:10.000Z'));

  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    requireBuild();
    orgId = await seededOrganizationId(suite.server);
  });

  const login = (username: string, password: string, code?: string) =>
    new TestClient(suite.server.url).post('/api/auth/login', {
      username,
      password,
      ...(code !== undefined && { code }),
    });
  const nextStep = () => clock.advance(30_000);

  async function account(role: 'admin' | 'superadmin' = 'admin') {
    const username = `${role}-${randomUUID().slice(0, 8)}`;
    const id = await createAdministrator(suite.server, orgId, role, username);
    const client = new TestClient(suite.server.url);
    expect((await client.login(username, SIGNED_IN_PASSWORD)).status).toBe(200);
    return { username, id, client };
  }

  /** Enrols `client` and returns the secret and recovery codes. */
  async function enrol(client: TestClient) {
    const setup = await client.post('/api/auth/2fa/setup', { password: SIGNED_IN_PASSWORD });
    expect(setup.status).toBe(200);
    const { secret, uri, qrSvg } = twoFactorSetup.parse(setup.body);
    expect(uri).toMatch(/^otpauth:\/\/totp\/svc:/);
    expect(qrSvg).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrSvg.split(',')[1]!, 'base64').toString()).toContain('<svg');
    const enabled = await client.post('/api/auth/2fa/enable', {
      code: codeAt(secret, clock.now().getTime()),
    });
    expect(enabled.status).toBe(200);
    const { recoveryCodes } = twoFactorEnabled.parse(enabled.body);
    nextStep(); // the enabling code is spent
    return { secret, recoveryCodes };
  }
  const audits = (action: string, targetId?: string) =>
    suite.server.ctx.models.Audit.count({ where: { action, ...(targetId && { targetId }) } });
  const signedIn = (reply: Reply) => reply.status === 200 && userResponse.parse(reply.body);

  test('enrol: the password again, a QR code, a first code, ten recovery codes kept hashed', async () => {
    const { id, client } = await account();
    const wrongPassword = await client.post('/api/auth/2fa/setup', { password: 'not-my-password' });
    expect(wrongPassword.status).toBe(401);
    const setup = twoFactorSetup.parse(
      (await client.post('/api/auth/2fa/setup', { password: SIGNED_IN_PASSWORD })).body,
    );
    const wrong = await client.post('/api/auth/2fa/enable', { code: '000000' });
    expect(errorCode(wrong)).toBe('two_factor_invalid');
    expect(twoFactorStatus.parse((await client.get('/api/auth/2fa')).body)).toMatchObject({
      enabled: false,
      pending: true,
    });
    const enabled = await client.post('/api/auth/2fa/enable', {
      code: codeAt(setup.secret, clock.now().getTime()),
    });
    const { recoveryCodes } = twoFactorEnabled.parse(enabled.body);
    expect(new Set(recoveryCodes).size).toBe(10);
    const stored = await suite.server.ctx.models.RecoveryCode.findAll({
      where: { administratorId: id },
    });
    expect(stored).toHaveLength(10);
    const hashes = stored.map((r) => r.codeHash).join(' ');
    for (const code of recoveryCodes) expect(hashes).not.toContain(code.replace(/-/g, ''));
    const row = await suite.server.ctx.models.AdministratorTotp.findByPk(id);
    expect(row?.secretSealed).not.toContain(setup.secret);
    expect(userResponse.parse((await client.get('/api/auth/me')).body).user).toMatchObject({
      twoFactorEnabled: true,
    });
    expect(await audits('auth.two_factor_setup', id)).toBe(2); // the refused one and this one
    expect(await audits('auth.two_factor_enable', id)).toBe(2); // the wrong code and this one
    nextStep();
  });

  test('sign in: the password alone asks for the code; each code works once', async () => {
    const { username, client } = await account();
    const { secret } = await enrol(client);
    const alone = await login(username, SIGNED_IN_PASSWORD);
    expect(alone.status).toBe(401);
    expect(errorCode(alone)).toBe('two_factor_required');
    expect(alone.setCookies.join()).not.toMatch(/svc_session=[^;]/);

    const code = codeAt(secret, clock.now().getTime());
    expect(errorCode(await login(username, 'wrong password here', code))).toBe(
      'invalid_credentials',
    );
    expect(signedIn(await login(username, SIGNED_IN_PASSWORD, code))).toBeTruthy();
    // The same code again (replayed, or shoulder-surfed) is refused.
    expect(errorCode(await login(username, SIGNED_IN_PASSWORD, code))).toBe('two_factor_invalid');
    nextStep();
    expect(
      signedIn(await login(username, SIGNED_IN_PASSWORD, codeAt(secret, clock.now().getTime()))),
    ).toBeTruthy();
    nextStep();
  });

  test('a recovery code signs in once', async () => {
    const { username, id, client } = await account();
    const { recoveryCodes } = await enrol(client);
    const code = recoveryCodes[3]!;
    expect(signedIn(await login(username, SIGNED_IN_PASSWORD, code.toLowerCase()))).toBeTruthy();
    expect(errorCode(await login(username, SIGNED_IN_PASSWORD, code))).toBe('two_factor_invalid');
    expect(await audits('auth.two_factor_recovery_code')).toBeGreaterThanOrEqual(1);
    const status = twoFactorStatus.parse((await client.get('/api/auth/2fa')).body);
    expect(status.recoveryCodesLeft).toBe(9);
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'auth.two_factor', outcome: 'failure', actorId: id },
      }),
    ).toBe(1);
  });

  test('an outsider locks out password guesses, never the owner with password and code', async () => {
    const { username, client } = await account();
    const { secret } = await enrol(client);
    for (let i = 0; i < 12; i++) await login(username, `guess-${i}-of-an-outsider`);
    const now = () => codeAt(secret, clock.now().getTime());
    // Locked: anything less than password and code is the same 429, right password or not.
    expect((await login(username, SIGNED_IN_PASSWORD)).status).toBe(429);
    expect((await login(username, 'still guessing the password', now())).status).toBe(429);
    const owner = await login(username, SIGNED_IN_PASSWORD, now());
    expect(signedIn(owner)).toBeTruthy();
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'auth.login', outcome: 'success', actorName: username },
      order: [['id', 'DESC']],
    });
    expect(audit?.summary).toMatch(/while password guesses were locked out/);
    nextStep();

    // Without two-factor sign-in the lockout stands, code or not.
    const plain = await account();
    for (let i = 0; i < 12; i++) await login(plain.username, `guess-${i}-of-an-outsider`);
    expect((await login(plain.username, SIGNED_IN_PASSWORD, '123456')).status).toBe(429);
  });

  test('reset by the host command: removed, sessions ended, the password alone signs in', async () => {
    const { username, id, client } = await account();
    await enrol(client);
    const env: Record<string, string> =
      suite.scratch.db.dialect === 'sqlite'
        ? { DATA_DIR: suite.scratch.dataDir }
        : {
            DATA_DIR: suite.scratch.dataDir,
            DB_HOST: suite.scratch.db.host,
            DB_PORT: String(suite.scratch.db.port),
            DB_USER: suite.scratch.db.user,
            DB_PASSWORD: suite.scratch.db.password,
            DB_DATABASE: suite.scratch.db.database,
          };
    const reset = spawnNode(ADMIN_CLI, ['reset-2fa', username.toUpperCase()], env);
    expect(await reset.exited).toBe(0);
    expect(reset.stdout()).toContain(`Two-factor sign-in of "${username}" removed`);
    expect((await client.get('/api/auth/me')).status).toBe(401);
    expect(
      await suite.server.ctx.models.RecoveryCode.count({ where: { administratorId: id } }),
    ).toBe(0);
    expect(signedIn(await login(username, SIGNED_IN_PASSWORD))).toBeTruthy();
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'auth.two_factor_reset', targetId: id },
    });
    expect(audit?.actorName).toBe('operator command');
  }, 60_000);

  test('required by a superadmin: the unenrolled can only enrol; a superadmin resets', async () => {
    const superadmin = await account('superadmin');
    const other = await account();
    expect(
      (
        await other.client.request('PUT', '/api/settings/two-factor', {
          body: { required: true },
          csrf: true,
        })
      ).status,
    ).toBe(403);
    const require = () =>
      superadmin.client.request('PUT', '/api/settings/two-factor', {
        body: { required: true },
        csrf: true,
      });
    expect((await require()).status).toBe(409); // not without their own second factor
    await enrol(superadmin.client);
    expect((await require()).status).toBe(200);
    expect(await audits('auth.two_factor_requirement')).toBe(1);
    try {
      const fresh = await login(other.username, SIGNED_IN_PASSWORD);
      expect(userResponse.parse(fresh.body).user).toMatchObject({
        twoFactorEnabled: false,
        twoFactorEnrolmentRequired: true,
      });
      const blocked = await other.client.get('/api/people');
      expect(blocked.status).toBe(403);
      expect(errorBody.parse(blocked.body).error.code).toBe('two_factor_enrolment_required');
      await enrol(other.client);
      expect((await other.client.get('/api/people')).status).toBe(200);

      // The phone is lost: a superadmin resets it; the next sign-in must enrol again.
      const reset = await superadmin.client.request(
        'DELETE',
        `/api/administrators/${other.id}/two-factor`,
        { csrf: true },
      );
      expect(reset.status).toBe(204);
      expect((await other.client.get('/api/auth/me')).status).toBe(401);
      const again = await login(other.username, SIGNED_IN_PASSWORD);
      expect(userResponse.parse(again.body).user.twoFactorEnrolmentRequired).toBe(true);
    } finally {
      await superadmin.client.request('PUT', '/api/settings/two-factor', {
        body: { required: false },
        csrf: true,
      });
    }
  });
});
