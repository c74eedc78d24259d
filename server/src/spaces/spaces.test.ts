import { randomUUID } from 'node:crypto';
import type { SpaceOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { TestClient, errorCode, type Reply } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { factories, secondOrganization } from '../test/factories.js';
import { descendantsOf, spaceAndAncestors, spaceAndDescendants } from './tree.js';

type Client = TestClient;

async function create(client: Client, name: string, parentId?: string | null): Promise<SpaceOut> {
  const reply = await client.post('/api/spaces', {
    name,
    ...(parentId !== undefined && { parentId }),
  });
  expect(reply.status).toBe(201);
  return reply.body as SpaceOut;
}

const patch = (client: Client, id: string, body: unknown) =>
  client.request('PATCH', `/api/spaces/${id}`, { body, csrf: true });
const del = (client: Client, id: string) =>
  client.request('DELETE', `/api/spaces/${id}`, { csrf: true });
const message = (reply: { body: unknown }) =>
  (reply.body as { error: { message: string } }).error.message;

describe.each(DIALECTS)('spaces on %s', (dialect) => {
  let admin: Client;
  let orgId: string;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    const username = `spaces-${randomUUID().slice(0, 8)}`;
    admin = await signedIn(suite.server, 'admin', username);
    const me = await suite.server.ctx.models.Administrator.findOne({ where: { username } });
    orgId = me!.organizationId;
  });

  test('a tree of any depth: create, rename, move, list by parent, ancestors', async () => {
    const site = await create(admin, 'Site');
    const building = await create(admin, 'Building', site.id);
    const floor = await create(admin, 'Floor 1', building.id);
    const door = await create(admin, 'Door 1.1', floor.id);
    expect(site).toMatchObject({ parentId: null, organizationId: orgId, name: 'Site' });
    expect(door.parentId).toBe(floor.id);

    const renamed = await patch(admin, floor.id, { name: 'Ground floor' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Ground floor', parentId: building.id });

    const children = await admin.get(`/api/spaces?parentId=${building.id}`);
    expect((children.body as { items: SpaceOut[] }).items.map((s) => s.id)).toEqual([floor.id]);

    const path = await admin.get(`/api/spaces/${door.id}/ancestors`);
    expect((path.body as { items: SpaceOut[] }).items.map((s) => s.name)).toEqual([
      'Site',
      'Building',
      'Ground floor',
    ]);
    expect(await spaceAndAncestors(suite.server.ctx, door.id)).toEqual([
      door.id,
      floor.id,
      building.id,
      site.id,
    ]);
    expect(new Set(await descendantsOf(suite.server.ctx, site.id))).toEqual(
      new Set([building.id, floor.id, door.id]),
    );
    expect(await spaceAndDescendants(suite.server.ctx, floor.id)).toEqual([floor.id, door.id]);
    expect(await spaceAndAncestors(suite.server.ctx, randomUUID())).toEqual([]);

    // Move the floor (with its door) to the root, then back under the site.
    const toRoot = await patch(admin, floor.id, { parentId: null });
    expect((toRoot.body as SpaceOut).parentId).toBeNull();
    expect(await spaceAndAncestors(suite.server.ctx, door.id)).toEqual([door.id, floor.id]);
    const roots = await admin.get('/api/spaces?parentId=root&pageSize=200');
    expect((roots.body as { items: SpaceOut[] }).items.map((s) => s.id)).toContain(floor.id);
    const back = await patch(admin, floor.id, { parentId: site.id, name: 'Floor 1' });
    expect(back.body).toMatchObject({ parentId: site.id, name: 'Floor 1' });
    expect(await spaceAndAncestors(suite.server.ctx, door.id)).toEqual([
      door.id,
      floor.id,
      site.id,
    ]);

    const audit = await suite.server.ctx.models.Audit.findAll({ where: { targetId: floor.id } });
    expect(audit.map((a) => a.action).sort()).toEqual([
      'space.create',
      'space.update',
      'space.update',
      'space.update',
    ]);
  });

  test('no cycles: a space under itself or a descendant is 409 naming the problem', async () => {
    const a = await create(admin, 'A');
    const b = await create(admin, 'B', a.id);
    const c = await create(admin, 'C', b.id);
    const self = await patch(admin, a.id, { parentId: a.id });
    expect(self.status).toBe(409);
    expect(errorCode(self)).toBe('conflict');
    expect(message(self)).toMatch(/own parent/);
    // Issue 34: the reason a client words the refusal from.
    expect(self.body).toMatchObject({ error: { params: { reason: 'space_own_parent' } } });
    const under = await patch(admin, a.id, { parentId: c.id });
    expect(under.status).toBe(409);
    expect(message(under)).toMatch(/descendants.*cycle/);
    expect(under.body).toMatchObject({ error: { params: { reason: 'space_cycle' } } });
    expect((await admin.get(`/api/spaces/${a.id}`)).body).toMatchObject({ parentId: null });
    // Moving a leaf under its grandparent's sibling is fine.
    const other = await create(admin, 'Other');
    expect((await patch(admin, c.id, { parentId: other.id })).status).toBe(200);
  });

  test('a parent must exist in the same organization, else 404', async () => {
    const otherOrg = await secondOrganization(suite.server);
    const stranger = await signedIn(suite.server, 'admin', undefined, otherOrg);
    const theirs = await create(stranger, 'Their site');
    const mine = await create(admin, 'My site');

    const createUnder = await admin.post('/api/spaces', { name: 'X', parentId: theirs.id });
    expect(createUnder.status).toBe(404);
    const missing = await admin.post('/api/spaces', { name: 'X', parentId: randomUUID() });
    expect(missing.status).toBe(404);
    expect((await patch(admin, mine.id, { parentId: theirs.id })).status).toBe(404);

    // The other organization's administrator cannot see, change or delete mine, nor list it.
    expect((await stranger.get(`/api/spaces/${mine.id}`)).status).toBe(404);
    expect((await stranger.get(`/api/spaces/${mine.id}/ancestors`)).status).toBe(404);
    expect((await patch(stranger, mine.id, { name: 'Mine now' })).status).toBe(404);
    expect((await del(stranger, mine.id)).status).toBe(404);
    const theirList = (await stranger.get('/api/spaces?pageSize=200')).body as {
      items: SpaceOut[];
      total: number;
    };
    expect(theirList.items.map((s) => s.id)).toEqual([theirs.id]);
    expect(theirList.total).toBe(1);
    const myList = (await admin.get('/api/spaces?pageSize=200')).body as { items: SpaceOut[] };
    expect(myList.items.map((s) => s.id)).not.toContain(theirs.id);
    expect((await admin.get(`/api/spaces/${mine.id}`)).body).toMatchObject({ name: 'My site' });
  });

  test('delete is refused while people, devices or child spaces depend on it, and says which', async () => {
    const hall = await create(admin, 'Hall');
    const booth = await create(admin, 'Booth', hall.id);
    const people = [];
    for (let i = 0; i < 3; i++) {
      const reply = await admin.post('/api/people', {
        name: `Test Person ${i}`,
        idNumber: `SPC-${randomUUID().slice(0, 8)}`,
        spaceIds: [hall.id],
      });
      expect(reply.status).toBe(201);
      people.push((reply.body as { id: string }).id);
    }
    const device = (
      await factories(suite.server).buildDevice({ organizationId: orgId, spaceId: hall.id })
    ).id;

    const refused = await del(admin, hall.id);
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe('conflict');
    expect(message(refused)).toBe(
      'This space cannot be deleted: 3 people and 1 device have access to this space; ' +
        'remove them first; it has 1 child space; move or delete it first.',
    );
    // The reason and its counts, so a client says it in its own language (issue #34).
    expect((refused.body as { error: { params: unknown } }).error.params).toEqual({
      reason: 'space_in_use',
      people: 3,
      devices: 1,
      children: 1,
    });

    await suite.server.ctx.models.Device.destroy({ where: { id: device } });
    for (const id of people.slice(1)) {
      const patched = await admin.request('PATCH', `/api/people/${id}`, {
        body: { spaceIds: [] },
        csrf: true,
      });
      expect(patched.status).toBe(200);
    }
    const onePerson = await del(admin, hall.id);
    expect(message(onePerson)).toBe(
      'This space cannot be deleted: 1 person has access to this space; remove them first; ' +
        'it has 1 child space; move or delete it first.',
    );
    expect((await admin.request('DELETE', `/api/people/${people[0]}`, { csrf: true })).status).toBe(
      204,
    );
    expect(message(await del(admin, hall.id))).toMatch(/1 child space; move or delete it first/);
    expect((await del(admin, booth.id)).status).toBe(204);
    expect((await del(admin, hall.id)).status).toBe(204);
    expect((await admin.get(`/api/spaces/${hall.id}`)).status).toBe(404);
    expect(await suite.server.ctx.models.Audit.count({ where: { action: 'space.delete' } })).toBe(
      2,
    );
    expect((await del(admin, hall.id)).status).toBe(404);
  });

  test('operators read but cannot change; strangers get 401; bad input is 400', async () => {
    const operator = await signedIn(suite.server, 'operator');
    const space = await create(admin, 'Lobby');
    expect((await operator.get('/api/spaces')).status).toBe(200);
    expect((await operator.get(`/api/spaces/${space.id}`)).status).toBe(200);
    expect((await operator.post('/api/spaces', { name: 'Nope' })).status).toBe(403);
    expect((await patch(operator, space.id, { name: 'Nope' })).status).toBe(403);
    expect((await del(operator, space.id)).status).toBe(403);
    expect((await new TestClient(suite.server.url).get('/api/spaces')).status).toBe(401);
    expect((await admin.get(`/api/spaces/${space.id}`)).body).toMatchObject({ name: 'Lobby' });

    for (const body of [
      { name: '' },
      { name: 'x'.repeat(129) },
      { name: 'A', parentId: 'x' },
      {},
    ]) {
      const reply = await admin.post('/api/spaces', body);
      expect(reply.status).toBe(400);
      expect(errorCode(reply)).toBe('invalid_input');
    }
    expect((await admin.get('/api/spaces/not-a-uuid')).status).toBe(400);
    for (const query of ['page=0', 'pageSize=1000', 'parentId=%27%20OR%201%3D1', 'page=abc']) {
      expect((await admin.get(`/api/spaces?${query}`)).status).toBe(400);
    }
  });

  test('lists are paged and ordered by name with an exact total', async () => {
    const otherOrg = await secondOrganization(suite.server, 'Paging org');
    const pager = await signedIn(suite.server, 'admin', undefined, otherOrg);
    for (const name of ['delta', 'alpha', 'charlie', 'bravo', 'echo']) await create(pager, name);
    const first = (await pager.get('/api/spaces?pageSize=2')).body as {
      items: SpaceOut[];
      total: number;
    };
    const third = (await pager.get('/api/spaces?pageSize=2&page=3')).body as {
      items: SpaceOut[];
    };
    expect(first.total).toBe(5);
    expect(first.items.map((s) => s.name)).toEqual(['alpha', 'bravo']);
    expect(third.items.map((s) => s.name)).toEqual(['echo']);
  });

  test('a name already used under the same parent is refused, in any case; elsewhere it is fine', async () => {
    const tag = randomUUID().slice(0, 6);
    const site = await create(admin, `Campus ${tag}`);
    const hall = await create(admin, 'Main hall', site.id);
    const refused = (reply: Reply, name: string) => {
      expect([reply.status, errorCode(reply)]).toEqual([409, 'duplicate_space_name']);
      expect(message(reply)).toBe(
        `A space named "${name}" already exists in this parent space; choose another name.`,
      );
      expect((reply.body as { error: { params: unknown } }).error.params).toEqual({ name });
    };
    refused(await admin.post('/api/spaces', { name: 'Main hall', parentId: site.id }), 'Main hall');
    refused(
      await admin.post('/api/spaces', { name: 'MAIN HALL ', parentId: site.id }),
      'Main hall',
    );
    const root = await admin.post('/api/spaces', { name: `campus ${tag}` });
    expect([root.status, errorCode(root)]).toEqual([409, 'duplicate_space_name']);
    expect(message(root)).toContain('at the top level');

    // Renaming onto a sibling's name, or moving next to one, is refused too; nothing changed.
    const annex = await create(admin, 'Annex', site.id);
    refused(await patch(admin, annex.id, { name: 'main hall' }), 'Main hall');
    const other = await create(admin, `Other ${tag}`);
    const lobby = await create(admin, 'Main hall', other.id);
    expect(lobby.name).toBe('Main hall');
    refused(await patch(admin, lobby.id, { parentId: site.id }), 'Main hall');
    const unchanged = (await admin.get(`/api/spaces/${lobby.id}`)).body as SpaceOut;
    expect(unchanged.parentId).toBe(other.id);
    // Renaming a space to its own name in another case is its own business.
    expect((await patch(admin, hall.id, { name: 'Main Hall' })).status).toBe(200);
  });

  test('two administrators creating the same name at once: one space', async () => {
    const name = `Race ${randomUUID().slice(0, 6)}`;
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => admin.post('/api/spaces', { name })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });
});
