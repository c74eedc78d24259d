import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { organizationOut } from '../organizations/routes.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { errorCode, TestClient } from '../test/http-client.js';
import { myOrganization, signedIn } from '../test/admins.js';

const organizationList = z.object({ items: z.array(organizationOut), total: z.number() });

describe.each(DIALECTS)('organizations on %s', (dialect) => {
  let superadmin: TestClient;
  let admin: TestClient;
  let orgId: string;

  const rename = (client: TestClient, id: string, name: unknown) =>
    client.request('PATCH', `/api/organizations/${id}`, { body: { name }, csrf: true });

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    superadmin = await signedIn(suite.server, 'superadmin');
    admin = await signedIn(suite.server, 'admin');
    orgId = await myOrganization(admin);
  });

  test('only a superadmin creates organizations; names are unique in any case', async () => {
    const created = await superadmin.post('/api/organizations', { name: '  North Campus ' });
    expect(created.status).toBe(201);
    const org = organizationOut.parse(created.body);
    expect(org.name).toBe('North Campus');
    expect(await suite.server.ctx.models.Organization.findByPk(org.id)).not.toBeNull();
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'organization.create', targetId: org.id },
    });
    expect(audit!.summary).toContain('North Campus');

    const duplicate = await superadmin.post('/api/organizations', { name: 'north campus' });
    expect([duplicate.status, errorCode(duplicate)]).toEqual([409, 'conflict']);
    expect((await superadmin.post('/api/organizations', { name: '' })).status).toBe(400);
    const byAdmin = await admin.post('/api/organizations', { name: 'Admin-made' });
    expect([byAdmin.status, errorCode(byAdmin)]).toEqual([403, 'forbidden']);
    expect(
      (await new TestClient(suite.server.url).post('/api/organizations', { name: 'x' })).status,
    ).toBe(401);

    const listed = organizationList.parse((await superadmin.get('/api/organizations')).body);
    expect(listed.items.map((o) => o.id)).toContain(org.id);
    const own = organizationList.parse((await admin.get('/api/organizations')).body);
    expect(own.items.map((o) => o.id)).toEqual([orgId]);
  });

  test('an admin renames their own organization; another’s answers 404; operators 403', async () => {
    const renamed = await rename(admin, orgId, 'Head Office');
    expect(renamed.status).toBe(200);
    expect(organizationOut.parse(renamed.body).name).toBe('Head Office');
    expect((await suite.server.ctx.models.Organization.findByPk(orgId))!.name).toBe('Head Office');
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'organization.rename', targetId: orgId },
    });
    expect(audit!.summary).toContain('Head Office');

    const other = organizationOut.parse(
      (await superadmin.post('/api/organizations', { name: 'South Campus' })).body,
    );
    for (const id of [other.id, randomUUID()]) {
      const reply = await rename(admin, id, 'Taken over');
      expect([reply.status, errorCode(reply)]).toEqual([404, 'not_found']);
    }
    expect((await suite.server.ctx.models.Organization.findByPk(other.id))!.name).toBe(
      'South Campus',
    );
    const clash = await rename(admin, orgId, 'SOUTH CAMPUS');
    expect(clash.status).toBe(409);

    const operator = await signedIn(suite.server, 'operator');
    expect((await rename(operator, orgId, 'Operator was here')).status).toBe(403);
    const bySuper = await rename(superadmin, other.id, 'South Campus East');
    expect(organizationOut.parse(bySuper.body).name).toBe('South Campus East');
  });
});
