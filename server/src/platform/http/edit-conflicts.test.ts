import { randomUUID } from 'node:crypto';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { errorCode, type Reply, type TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';

/** Issue 30 item 6: every administrator edit carries an entity tag; a stale one answers 412. */

const body = (reply: Reply) => reply.body as Record<string, unknown> & { etag: string };
const patch = (client: TestClient, path: string, data: unknown, ifMatch?: string) =>
  client.request('PATCH', path, {
    body: data,
    csrf: true,
    ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
  });

interface Case {
  kind: string;
  /** Creates the record and answers its path. */
  make: (admin: TestClient) => Promise<string>;
  /** Where the record is read (organizations have no GET of one: their list). */
  read?: (admin: TestClient, path: string) => Promise<Reply>;
  first: Record<string, unknown>;
  second: Record<string, unknown>;
}

const unique = () => randomUUID().slice(0, 8);

const cases: Case[] = [
  {
    kind: 'person',
    make: async (admin) => {
      const reply = await admin.post('/api/people', { name: 'Ada Stone', idNumber: unique() });
      return `/api/people/${body(reply).id as string}`;
    },
    first: { phone: '+1 555 0100' },
    second: { notes: 'front desk' },
  },
  {
    kind: 'space',
    make: async (admin) => {
      const reply = await admin.post('/api/spaces', { name: `Hall ${unique()}` });
      return `/api/spaces/${body(reply).id as string}`;
    },
    first: { name: `Hall A ${unique()}` },
    second: { name: `Hall B ${unique()}` },
  },
  {
    kind: 'device',
    make: async (admin) => {
      const reply = await admin.post('/api/devices', {
        sn: `SN-${unique()}`,
        name: 'Gate',
        baseUrl: 'http://192.0.2.10:8090',
      });
      return `/api/devices/${body(reply).id as string}`;
    },
    first: { baseUrl: 'http://192.0.2.11:8090' },
    second: { name: 'Gate 2' },
  },
  {
    kind: 'administrator',
    make: async (admin) => {
      const reply = await admin.post('/api/administrators', {
        username: `op-${unique()}`,
        displayName: 'Night operator',
        role: 'operator',
      });
      return `/api/administrators/${body(reply).id as string}`;
    },
    first: { displayName: 'Day operator' },
    second: { role: 'admin' },
  },
  {
    kind: 'organization',
    make: async (admin) => {
      const reply = await admin.post('/api/organizations', { name: `Org ${unique()}` });
      return `/api/organizations/${body(reply).id as string}`;
    },
    read: async (admin, path) => {
      const list = await admin.get('/api/organizations');
      const items = (list.body as { items: { id: string; etag: string }[] }).items;
      const item = items.find((o) => path.endsWith(o.id));
      return {
        ...list,
        body: item,
        headers: new Headers({ etag: item?.etag ?? '' }),
      };
    },
    first: { name: `Org A ${unique()}` },
    second: { name: `Org B ${unique()}` },
  },
];

describe.each(DIALECTS)('edit conflicts on %s', (dialect) => {
  let alice: TestClient;
  let bob: TestClient;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    alice = await signedIn(suite.server, 'superadmin');
    bob = await signedIn(suite.server, 'superadmin');
  });

  test.each(cases)(
    '$kind: the second save over a stale tag is 412, then saved again',
    async (c) => {
      const path = await c.make(alice);
      const read = (client: TestClient) => (c.read ? c.read(client, path) : client.get(path));
      // Both open the record: the same tag, in the body and as the ETag header.
      const opened = await read(alice);
      expect(opened.status).toBe(200);
      const tag = body(opened).etag;
      expect(tag).toMatch(/^"[\w-]+"$/);
      expect(opened.headers.get('etag')).toBe(tag);
      expect(body(await read(bob)).etag).toBe(tag);

      const saved = await patch(alice, path, c.first, tag);
      expect(saved.status).toBe(200);
      expect(body(saved).etag).not.toBe(tag);
      expect(saved.headers.get('etag')).toBe(body(saved).etag);

      // Bob still holds the old tag: refused, nothing written, and told the current tag.
      const stale = await patch(bob, path, c.second, tag);
      expect([stale.status, errorCode(stale)]).toEqual([412, 'edit_conflict']);
      expect((stale.body as { error: { message: string } }).error.message).toMatch(
        /Someone else changed this .* after you opened it/,
      );
      expect(stale.headers.get('etag')).toBe(body(saved).etag);
      const now = body(await read(alice));
      expect(now).toMatchObject(c.first);
      expect(now.etag).toBe(body(saved).etag);

      // Having reviewed the change, Bob saves with the fresh tag.
      const again = await patch(bob, path, c.second, now.etag);
      expect(again.status).toBe(200);
      expect(body(again)).toMatchObject({ ...c.first, ...c.second });
    },
  );

  test('no If-Match (scripts, older clients) and * still save', async () => {
    const path = await cases[1]!.make(alice);
    expect((await patch(alice, path, { name: `Plain ${unique()}` })).status).toBe(200);
    expect((await patch(alice, path, { name: `Star ${unique()}` }, '*')).status).toBe(200);
    const tag = body(await alice.get(path)).etag;
    expect((await patch(alice, path, { name: `Weak ${unique()}` }, `W/${tag}`)).status).toBe(200);
  });

  test('a write of fields no edit shows (updatedAt) keeps the tag', async () => {
    const path = await cases[0]!.make(alice);
    const tag = body(await alice.get(path)).etag;
    const id = path.split('/').pop()!;
    await suite.server.ctx.models.Person.update(
      { updatedAt: new Date(Date.now() + 60_000) },
      { where: { id } },
    );
    expect(body(await alice.get(path)).etag).toBe(tag);
    expect((await patch(alice, path, { notes: 'still mine' }, tag)).status).toBe(200);
  });
});
