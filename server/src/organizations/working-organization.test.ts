import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { administratorWithPassword, spaceOut, userResponse } from '@svc/shared';
import { organizationOut } from './routes.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { errorCode, type TestClient } from '../test/http-client.js';
import { myOrganization, signedIn } from '../test/admins.js';

const spaceList = z.object({ items: z.array(spaceOut) });
const organizationList = z.object({ items: z.array(organizationOut) });

/**
 * A superadmin works in one organization at a time (`PUT /api/auth/organization`): every read
 * is limited to it and new rows go there, like for an administrator of that organization.
 */
describe.each(DIALECTS)('working organization on %s', (dialect) => {
  let superadmin: TestClient;
  let admin: TestClient;
  let homeId: string;
  let branchId: string;

  const choose = (client: TestClient, organizationId: string | null) =>
    client.request('PUT', '/api/auth/organization', { body: { organizationId }, csrf: true });
  const spaceNames = async (client: TestClient) =>
    spaceList.parse((await client.get('/api/spaces')).body).items.map((s) => s.name);

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    superadmin = await signedIn(suite.server, 'superadmin');
    admin = await signedIn(suite.server, 'admin');
    homeId = await myOrganization(admin);
    const branch = await superadmin.post('/api/organizations', { name: 'Branch office' });
    branchId = organizationOut.parse(branch.body).id;
    expect((await superadmin.post('/api/spaces', { name: 'Home hall' })).status).toBe(201);
  });

  test('the chosen organization scopes reads and receives new rows; null works in all', async () => {
    const me = userResponse.parse((await superadmin.get('/api/auth/me')).body).user;
    expect(me.workingOrganizationId).toBeNull();

    const chosen = await choose(superadmin, branchId);
    expect(chosen.status).toBe(200);
    expect(userResponse.parse(chosen.body).user.workingOrganizationId).toBe(branchId);
    expect(await spaceNames(superadmin)).not.toContain('Home hall');
    const created = await superadmin.post('/api/spaces', { name: 'Branch hall' });
    expect(spaceOut.parse(created.body).organizationId).toBe(branchId);
    // The switcher still lists every organization.
    const orgs = organizationList.parse((await superadmin.get('/api/organizations')).body);
    expect(orgs.items.map((o) => o.id).sort()).toEqual([homeId, branchId].sort());
    // A row of the other organization answers like a missing one.
    const homeHall = await suite.server.ctx.models.Space.findOne({ where: { name: 'Home hall' } });
    expect((await superadmin.get(`/api/spaces/${homeHall!.id}`)).status).toBe(404);

    // The administrator of the home organization never sees the branch's rows.
    expect(await spaceNames(admin)).toEqual(['Home hall']);

    expect((await choose(superadmin, null)).status).toBe(200);
    expect(await spaceNames(superadmin)).toEqual(
      expect.arrayContaining(['Home hall', 'Branch hall']),
    );
  });

  test('a new administrator joins the organization worked in unless one is named', async () => {
    await choose(superadmin, branchId);
    const made = await superadmin.post('/api/administrators', {
      username: `branch-${randomUUID().slice(0, 6)}`,
      role: 'admin',
    });
    expect(administratorWithPassword.parse(made.body).organizationId).toBe(branchId);
    const named = await superadmin.post('/api/administrators', {
      username: `home-${randomUUID().slice(0, 6)}`,
      role: 'operator',
      organizationId: homeId,
    });
    expect(administratorWithPassword.parse(named.body).organizationId).toBe(homeId);
    await choose(superadmin, null);
  });

  test('only a superadmin chooses, and only an organization that exists', async () => {
    const byAdmin = await choose(admin, homeId);
    expect([byAdmin.status, errorCode(byAdmin)]).toEqual([403, 'forbidden']);
    const missing = await choose(superadmin, randomUUID());
    expect([missing.status, errorCode(missing)]).toEqual([404, 'not_found']);
    const bad = await choose(superadmin, 'branch');
    expect(bad.status).toBe(400);
    const me = userResponse.parse((await superadmin.get('/api/auth/me')).body).user;
    expect(me.workingOrganizationId).toBeNull();
  });
});
