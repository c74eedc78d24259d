import { randomUUID } from 'node:crypto';
import {
  administratorOut,
  administratorWithPassword,
  listOf,
  userResponse,
  type AdminRole,
} from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { secondOrganization } from '../test/factories.js';
import { TEST_ADMIN_PASSWORD, type TestServer } from '../test/harness.js';
import { errorCode, TestClient, type Reply } from '../test/http-client.js';
import { myOrganization, SIGNED_IN_PASSWORD, signedIn } from '../test/admins.js';

const NEW_PASSWORD = 'copper lantern meadow ninety';
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

describe.each(DIALECTS)('administrators on %s', (dialect) => {
  let server: TestServer;
  let orgId: string;
  let otherOrgId: string;
  let superadmin: TestClient;
  let admin: TestClient;
  /** Every one-time password handed out, to prove none reaches the audit log. */
  const issued: string[] = [];

  const create = async (
    client: TestClient,
    body: { role: AdminRole; organizationId?: string; displayName?: string },
  ): Promise<Reply> => client.post('/api/administrators', { username: uniqueName('u'), ...body });
  const created = (reply: Reply) => {
    expect(reply.status).toBe(201);
    const out = administratorWithPassword.strict().parse(reply.body);
    issued.push(out.temporaryPassword);
    return out;
  };
  const patch = (client: TestClient, id: string, body: unknown) =>
    client.request('PATCH', `/api/administrators/${id}`, { body, csrf: true });
  const signIn = async (username: string, password: string) => {
    const client = new TestClient(server.url);
    const reply = await client.login(username, password);
    return { client, reply };
  };
  const idOf = async (client: TestClient) =>
    userResponse.parse((await client.get('/api/auth/me')).body).user.id;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    superadmin = await signedIn(server, 'superadmin');
    admin = await signedIn(server, 'admin');
    orgId = await myOrganization(admin);
    otherOrgId = await secondOrganization(server, 'Other organization');
  });

  test('a new administrator’s one-time password works once and forces a change', async () => {
    const out = created(await create(admin, { role: 'operator', displayName: 'Night Desk' }));
    expect(out).toMatchObject({
      organizationId: orgId,
      role: 'operator',
      displayName: 'Night Desk',
      mustChangePassword: true,
      disabled: false,
      lastLoginAt: null,
    });
    expect(out.temporaryPassword.length).toBeGreaterThanOrEqual(20);
    const read = await admin.get(`/api/administrators/${out.id}`);
    expect(administratorOut.strict().parse(read.body).username).toBe(out.username);

    const first = await signIn(out.username, out.temporaryPassword);
    expect(first.reply.status).toBe(200);
    expect(userResponse.parse(first.reply.body).user.mustChangePassword).toBe(true);
    const blocked = await first.client.get('/api/devices');
    expect([blocked.status, errorCode(blocked)]).toEqual([403, 'password_change_required']);
    const changed = await first.client.post('/api/auth/password', {
      currentPassword: out.temporaryPassword,
      newPassword: NEW_PASSWORD,
    });
    expect(changed.status).toBe(204);
    expect((await first.client.get('/api/devices')).status).toBe(200);

    expect((await signIn(out.username, out.temporaryPassword)).reply.status).toBe(401);
    const again = await signIn(out.username, NEW_PASSWORD);
    expect(userResponse.parse(again.reply.body).user.mustChangePassword).toBe(false);
  });

  test('who may create whom: admins their organization’s admins and operators; superadmins anything', async () => {
    const asSuper = await create(admin, { role: 'superadmin' });
    expect([asSuper.status, errorCode(asSuper)]).toEqual([403, 'forbidden']);
    const elsewhere = await create(admin, { role: 'operator', organizationId: otherOrgId });
    expect(elsewhere.status).toBe(403);
    expect(created(await create(admin, { role: 'admin' })).organizationId).toBe(orgId);
    expect(created(await create(admin, { role: 'admin', organizationId: orgId })).role).toBe(
      'admin',
    );

    const operator = await signedIn(server, 'operator');
    expect((await create(operator, { role: 'operator' })).status).toBe(403);
    expect((await operator.get('/api/administrators')).status).toBe(403);

    expect(created(await create(superadmin, { role: 'superadmin' })).role).toBe('superadmin');
    const foreign = created(
      await create(superadmin, { role: 'admin', organizationId: otherOrgId }),
    );
    expect(foreign.organizationId).toBe(otherOrgId);
    const noOrg = await create(superadmin, { role: 'admin', organizationId: randomUUID() });
    expect(noOrg.status).toBe(400);

    const taken = await admin.post('/api/administrators', {
      username: foreign.username.toUpperCase(),
      role: 'operator',
    });
    expect([taken.status, errorCode(taken)]).toEqual([409, 'conflict']);
    const invalid = await admin.post('/api/administrators', { username: 'a b', role: 'king' });
    expect(invalid.status).toBe(400);
    expect(
      (invalid.body as { error: { fields: Record<string, string> } }).error.fields,
    ).toMatchObject({ username: expect.any(String), role: expect.any(String) });
  });

  test('role changes follow the same rules, and nobody changes their own role', async () => {
    const target = created(await create(admin, { role: 'operator' }));
    const promoted = await patch(admin, target.id, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(administratorOut.parse(promoted.body).role).toBe('admin');
    expect((await patch(admin, target.id, { role: 'superadmin' })).status).toBe(403);
    const adminId = await idOf(admin);
    const own = await patch(admin, adminId, { role: 'operator' });
    expect([own.status, errorCode(own)]).toEqual([403, 'forbidden']);
    expect((await patch(admin, adminId, { disabled: true })).status).toBe(403);
    const superId = await idOf(superadmin);
    expect((await patch(admin, superId, { disabled: true })).status).toBe(403);
    expect((await patch(admin, superId, { displayName: 'Renamed by admin' })).status).toBe(403);

    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'admin.update', targetId: target.id },
    });
    expect(audit!.summary).toContain('role operator → admin');
  });

  test('a superadmin moves an account to another organization (audited, If-Match); an admin cannot', async () => {
    const target = created(await create(admin, { role: 'operator', displayName: 'Mover' }));
    const byAdmin = await patch(admin, target.id, { organizationId: otherOrgId });
    expect(byAdmin.status).toBe(403);
    const unknown = await patch(superadmin, target.id, { organizationId: randomUUID() });
    expect([unknown.status, errorCode(unknown)]).toEqual([400, 'invalid_input']);
    const stale = await superadmin.request('PATCH', `/api/administrators/${target.id}`, {
      body: { organizationId: otherOrgId },
      csrf: true,
      headers: { 'If-Match': '"not-the-current-tag"' },
    });
    expect(stale.status).toBe(412);
    const moved = await superadmin.request('PATCH', `/api/administrators/${target.id}`, {
      body: { organizationId: otherOrgId, displayName: 'Moved' },
      csrf: true,
      headers: { 'If-Match': target.etag },
    });
    expect(moved.status).toBe(200);
    const out = administratorOut.parse(moved.body);
    expect([out.organizationId, out.displayName]).toEqual([otherOrgId, 'Moved']);
    expect(out.etag).not.toBe(target.etag);
    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'admin.update', targetId: target.id },
    });
    expect(audit!.summary).toContain('moved to another organization');
    const message = JSON.parse(audit!.summaryMessage!) as { params: Record<string, string> };
    expect(message.params.organization).toBe('moved');
  });

  test('the last enabled superadmin can be neither demoted nor disabled (409)', async () => {
    const lone = await signedIn(server, 'superadmin');
    const loneId = await idOf(lone);
    // Leave `lone` the only enabled superadmin: disable every other one.
    const others = await server.ctx.models.Administrator.findAll({
      where: { role: 'superadmin', disabled: false },
    });
    for (const other of others.filter((a) => a.id !== loneId)) {
      const off = await patch(lone, other.id, { disabled: true });
      expect(off.status).toBe(200);
    }
    for (const change of [{ role: 'admin' }, { disabled: true }]) {
      const refused = await patch(lone, loneId, change);
      expect([refused.status, errorCode(refused)]).toEqual([409, 'conflict']);
      // The rule and whose account, so a client says it in its own language (issue #34).
      expect((refused.body as { error: { params: unknown } }).error.params).toEqual({
        reason: 'last_superadmin',
        username: (await server.ctx.models.Administrator.findByPk(loneId))!.username,
      });
    }
    const still = await server.ctx.models.Administrator.findByPk(loneId);
    expect([still!.role, still!.disabled]).toEqual(['superadmin', false]);

    // With a second superadmin, the first may be demoted — by the other, not by itself.
    const second = created(await create(lone, { role: 'superadmin' }));
    const ownRole = await patch(lone, loneId, { role: 'admin' });
    expect(ownRole.status).toBe(403);
    const secondClient = (await signIn(second.username, second.temporaryPassword)).client;
    await secondClient.post('/api/auth/password', {
      currentPassword: second.temporaryPassword,
      newPassword: NEW_PASSWORD,
    });
    const demoted = await patch(secondClient, loneId, { role: 'admin' });
    expect(demoted.status).toBe(200);
    const last = await patch(secondClient, second.id, { disabled: true });
    expect(last.status).toBe(409);
    // Put the seeded superadmin back for the rest of the suite.
    const seeded = await server.ctx.models.Administrator.findOne({ where: { username: 'admin' } });
    expect((await patch(secondClient, seeded!.id, { disabled: false })).status).toBe(200);
    superadmin = secondClient;
  });

  test('disabling ends the account’s sessions at once; enabling lets it sign in again', async () => {
    const username = uniqueName('desk');
    const victim = await signedIn(server, 'operator', username);
    const victimId = await idOf(victim);
    expect((await victim.get('/api/devices')).status).toBe(200);

    const off = await patch(admin, victimId, { disabled: true });
    expect(off.status).toBe(200);
    expect(administratorOut.parse(off.body).disabled).toBe(true);
    expect((await victim.get('/api/devices')).status).toBe(401);
    expect(await server.ctx.models.Session.count({ where: { administratorId: victimId } })).toBe(0);
    expect((await signIn(username, SIGNED_IN_PASSWORD)).reply.status).toBe(401);

    expect((await patch(admin, victimId, { disabled: false })).status).toBe(200);
    expect((await signIn(username, SIGNED_IN_PASSWORD)).reply.status).toBe(200);
    const audit = await server.ctx.models.Audit.findAll({
      where: { action: 'admin.update', targetId: victimId },
    });
    expect(audit.map((a) => a.summary).join('\n')).toMatch(
      /disabled; sessions ended[\s\S]*enabled/,
    );
  });

  test('a password reset issues a new one-time password, ends sessions and clears the lockout', async () => {
    const username = uniqueName('clerk');
    const victim = await signedIn(server, 'operator', username);
    const victimId = await idOf(victim);
    const now = server.ctx.clock.now();
    await server.ctx.models.LoginFailure.bulkCreate(
      Array.from({ length: 10 }, () => ({ scope: 'user' as const, key: username, at: now })),
    );
    expect((await signIn(username, SIGNED_IN_PASSWORD)).reply.status).toBe(429);

    const reset = await admin.post(`/api/administrators/${victimId}/password-reset`);
    expect(reset.status).toBe(200);
    const out = administratorWithPassword.strict().parse(reset.body);
    issued.push(out.temporaryPassword);
    expect(out.mustChangePassword).toBe(true);
    expect((await victim.get('/api/devices')).status).toBe(401);
    expect((await signIn(username, SIGNED_IN_PASSWORD)).reply.status).toBe(401);
    const fresh = await signIn(username, out.temporaryPassword);
    expect(fresh.reply.status).toBe(200);
    expect(userResponse.parse(fresh.reply.body).user.mustChangePassword).toBe(true);

    const own = await admin.post(`/api/administrators/${await idOf(admin)}/password-reset`);
    expect(own.status).toBe(403);
    const ofSuper = await admin.post(
      `/api/administrators/${await idOf(superadmin)}/password-reset`,
    );
    expect(ofSuper.status).toBe(403);
  });

  test('another organization’s administrators answer 404 and are not listed', async () => {
    const foreign = created(
      await create(superadmin, { role: 'admin', organizationId: otherOrgId }),
    );
    for (const [method, path, body] of [
      ['GET', `/api/administrators/${foreign.id}`, undefined],
      ['PATCH', `/api/administrators/${foreign.id}`, { disabled: true }],
      ['POST', `/api/administrators/${foreign.id}/password-reset`, undefined],
    ] as const) {
      const reply = await admin.request(method, path, { body, csrf: true });
      expect([method, reply.status, errorCode(reply)]).toEqual([method, 404, 'not_found']);
    }
    const mine = listOf(administratorOut).parse(
      (await admin.get('/api/administrators?pageSize=200')).body,
    );
    expect(mine.items.every((a) => a.organizationId === orgId)).toBe(true);
    expect(mine.items.map((a) => a.id)).not.toContain(foreign.id);
    const all = listOf(administratorOut).parse(
      (await superadmin.get('/api/administrators?pageSize=200')).body,
    );
    expect(all.items.map((a) => a.id)).toContain(foreign.id);
    const filtered = listOf(administratorOut).parse(
      (await superadmin.get(`/api/administrators?q=${foreign.username.slice(0, 8)}&role=admin`))
        .body,
    );
    expect(filtered.items.map((a) => a.id)).toContain(foreign.id);
    expect(filtered.items.every((a) => a.role === 'admin')).toBe(true);
    expect((await admin.get('/api/administrators?q=%00')).status).toBe(400);
    expect((await admin.get('/api/administrators?q=_')).body).toMatchObject({ total: 0 });
  });

  test('two superadmins disabling each other at once leave one enabled', async () => {
    const x = await signedIn(server, 'superadmin');
    const y = await signedIn(server, 'superadmin');
    const [xId, yId] = [await idOf(x), await idOf(y)];
    const others = await server.ctx.models.Administrator.findAll({
      where: { role: 'superadmin', disabled: false },
    });
    for (const other of others.filter((a) => a.id !== xId && a.id !== yId)) {
      expect((await patch(x, other.id, { disabled: true })).status).toBe(200);
    }
    const replies = await Promise.all([
      patch(x, yId, { disabled: true }),
      patch(y, xId, { disabled: true }),
    ]);
    const statuses = replies.map((r) => r.status).sort();
    // The loser is refused as the last superadmin (409), or its session already ended (401).
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    expect(
      await server.ctx.models.Administrator.count({
        where: { role: 'superadmin', disabled: false },
      }),
    ).toBe(1);
  });

  test('the audit log records every change and never a password', async () => {
    const rows = await server.ctx.models.Audit.findAll({ raw: true });
    const actions = new Set(rows.map((r) => r.action));
    for (const action of ['admin.create', 'admin.update', 'admin.password_reset']) {
      expect(actions).toContain(action);
    }
    const text = JSON.stringify(rows);
    expect(issued.length).toBeGreaterThan(5);
    for (const secret of [...issued, NEW_PASSWORD, SIGNED_IN_PASSWORD, TEST_ADMIN_PASSWORD]) {
      expect(text).not.toContain(secret);
    }
    const creation = rows.find((r) => r.action === 'admin.create');
    expect(creation).toMatchObject({ outcome: 'success', targetType: 'administrator' });
    expect(creation!.actorName).toBeTruthy();
  });
});
