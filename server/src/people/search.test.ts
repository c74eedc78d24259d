import { randomUUID } from 'node:crypto';
import { idNumber as idNumberSchema, type PersonOut, type SpaceOut } from '@svc/shared';
import { DIALECTS, scratchDb } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { secondOrganization } from '../test/factories.js';
import { canonicalIdNumber, nameKey } from './keys.js';
import { searchPeople, type PeopleSearch } from './store/search.js';

interface Page {
  items: PersonOut[];
  total: number;
  totalCapped: boolean;
}

/** Names chosen to trip case, accents, LIKE metacharacters, quotes and scripts. */
const NAMED: [string, string][] = [
  ['Élodie Martin', 'AB-100'],
  ['elodie Durand', 'AB-101'],
  ['Émile Zola', 'CD-200'],
  ['Ana Núñez', 'CD-201'],
  ['Per%cent Test', 'EF-300'],
  ['Under_score Test', 'EF-301'],
  ['Back\\slash Test', 'EF-302'],
  ['😀 Smiley', 'GH-400'],
  ['שלום עליכם', 'GH-401'],
  ['Abe Lincoln', 'ZZ-1'],
  ["O'Brien Quote", 'ZZ-2'],
  ['Bang! Test', 'ZZ-3'],
];
const FILLERS = 30;

describe.each(DIALECTS)('people search on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let orgId: string;
  const byName = new Map<string, PersonOut>();
  const all: PersonOut[] = [];
  const spaces = { site: '', floor1: '', floor2: '', door: '' };

  const list = async (query: string): Promise<Page> => {
    const reply = await admin.get(`/api/people?${query}`);
    expect(reply.status).toBe(200);
    return reply.body as Page;
  };
  const names = (page: Page) => page.items.map((p) => p.name);
  const q = (value: string) => `q=${encodeURIComponent(value)}&pageSize=200`;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    // An organization of its own, so every total below is exact.
    orgId = await secondOrganization(server, 'Search org');
    admin = await signedIn(server, 'admin', undefined, orgId);
    const space = async (name: string, parentId?: string) =>
      ((await admin.post('/api/spaces', { name, parentId })).body as SpaceOut).id;
    spaces.site = await space('Site');
    spaces.floor1 = await space('Floor 1', spaces.site);
    spaces.floor2 = await space('Floor 2', spaces.site);
    spaces.door = await space('Door', spaces.floor2);
    const access: Record<string, string[]> = {
      'Élodie Martin': [spaces.floor1],
      'elodie Durand': [spaces.floor2],
      'Émile Zola': [spaces.site],
      'Abe Lincoln': [spaces.door, spaces.floor1],
    };
    for (const [name, idNumber] of NAMED) {
      const reply = await admin.post('/api/people', {
        name,
        idNumber,
        spaceIds: access[name] ?? [],
        enabled: name !== 'Ana Núñez',
      });
      expect(reply.status).toBe(201);
      byName.set(name, reply.body as PersonOut);
      all.push(reply.body as PersonOut);
    }
    for (let i = 1; i <= FILLERS; i++) {
      const n = String(i).padStart(3, '0');
      // Created in an order unlike the name order, so the sorts are told apart.
      const name = `Filler ${String((i * 7) % FILLERS).padStart(3, '0')}`;
      const reply = await admin.post('/api/people', {
        name,
        idNumber: `FL-${n}`,
        spaceIds: i % 3 === 0 ? [spaces.door] : [],
      });
      const person = reply.body as PersonOut;
      // Distinct, increasing times, so the time sorts have one right answer.
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
      await server.ctx.models.Person.update(
        { createdAt: at, updatedAt: at },
        { where: { id: person.id } },
      );
      all.push({ ...person, createdAt: at.toISOString(), updatedAt: at.toISOString() });
    }
    // Someone in the seeded organization who must never show up here.
    const outsider = await signedIn(server, 'admin');
    await outsider.post('/api/people', { name: 'Elodie Outsider', idNumber: 'AB-100' });
  });

  test('name prefix ignores case and accents; whitespace is collapsed', async () => {
    for (const query of ['elo', 'ÉLO', 'Elodie', '  éLoDiE ']) {
      const page = await list(q(query));
      expect(names(page)).toEqual(['elodie Durand', 'Élodie Martin']);
      expect(page).toMatchObject({ total: 2, totalCapped: false });
    }
    expect(names(await list(q('elodie    durand')))).toEqual(['elodie Durand']);
    expect(names(await list(q('emile zo')))).toEqual(['Émile Zola']);
    expect(names(await list(q('ana nunez')))).toEqual(['Ana Núñez']);
    expect(names(await list(q('martin')))).toEqual([]);
  });

  test('ID-number prefix, case-insensitive, merged with name matches', async () => {
    expect(names(await list(q('AB-10')))).toEqual(['elodie Durand', 'Élodie Martin']);
    expect(names(await list(q('ab-100')))).toEqual(['Élodie Martin']);
    expect(names(await list(q('fl-01')))).toHaveLength(10);
    // "ab" is both a name prefix (Abe) and an ID prefix (AB-100, AB-101): one sorted list.
    const both = await list(q('ab'));
    expect(names(both)).toEqual(['Abe Lincoln', 'elodie Durand', 'Élodie Martin']);
    expect(both.total).toBe(3);
    const paged = await list('q=ab&pageSize=2&page=2');
    expect(names(paged)).toEqual(['Élodie Martin']);
    expect(paged.total).toBe(3);
  });

  test('by space: direct access, or with includeDescendants the whole subtree', async () => {
    expect(names(await list(`spaceId=${spaces.site}`))).toEqual(['Émile Zola']);
    const subtree = await list(`spaceId=${spaces.site}&includeDescendants=true&pageSize=200`);
    expect(subtree.total).toBe(4 + FILLERS / 3);
    expect(names(subtree).slice(0, 2)).toEqual(['Abe Lincoln', 'elodie Durand']);
    expect(names(await list(`spaceId=${spaces.floor1}`))).toEqual(['Abe Lincoln', 'Élodie Martin']);
    expect(names(await list(`spaceId=${spaces.door}&q=abe`))).toEqual(['Abe Lincoln']);
    expect((await list(`spaceId=${spaces.door}&q=fill`)).total).toBe(FILLERS / 3);
    expect((await list(`spaceId=${randomUUID()}`)).total).toBe(0);
  });

  test('enabled filter', async () => {
    expect(names(await list('enabled=false'))).toEqual(['Ana Núñez']);
    const enabled = await list('enabled=true&pageSize=200');
    expect(enabled.total).toBe(all.length - 1);
    expect(names(enabled)).not.toContain('Ana Núñez');
  });

  test('server-side paging and every sort', async () => {
    const pages: PersonOut[] = [];
    for (let page = 1; page <= 5; page++) {
      const p = await list(`q=filler&pageSize=7&page=${page}`);
      expect(p.total).toBe(FILLERS);
      pages.push(...p.items);
    }
    const expected = all.filter((p) => p.name.startsWith('Filler'));
    expect(pages.map((p) => p.name)).toEqual(expected.map((p) => p.name).sort());
    expect(new Set(pages.map((p) => p.id)).size).toBe(FILLERS);
    expect((await list('q=filler&pageSize=7&page=6')).items).toEqual([]);

    const sorted = async (sort: string) => (await list(`q=filler&pageSize=200&sort=${sort}`)).items;
    const ids = (items: PersonOut[]) => items.map((p) => p.id);
    expect(ids(await sorted('-name'))).toEqual(ids(await sorted('name')).reverse());
    const byId = await sorted('idNumber');
    expect(byId.map((p) => p.idNumber)).toEqual(expected.map((p) => p.idNumber).sort());
    expect(ids(await sorted('-idNumber'))).toEqual(ids(byId).reverse());
    // Created in idNumber order, in separate requests: creation order is ID order.
    expect(ids(await sorted('createdAt'))).toEqual(ids(byId));
    expect(ids(await sorted('-createdAt'))).toEqual(ids(byId).reverse());
    expect(ids(await sorted('updatedAt'))).toEqual(ids(byId));
  });

  // Hundreds of requests: on a loaded machine more than jest's 30 s.
  test('every query plan answers the same, and totals cap with totalCapped', async () => {
    const base: PeopleSearch = { organizationId: orgId, sort: 'name', page: 1, pageSize: 5 };
    const variants: Partial<PeopleSearch>[] = [
      {},
      { q: 'fil' },
      { q: 'ab' },
      { q: 'FL-0' },
      { q: 'fl-0', sort: '-idNumber' },
      { q: 'fil', sort: 'idNumber', page: 2 },
      { q: 'fil', sort: 'createdAt' },
      { spaceIds: [spaces.door] },
      { spaceIds: [spaces.door], page: 2 },
      { spaceIds: [spaces.door, spaces.floor1], q: 'a' },
      { spaceIds: [spaces.door], q: 'fl-', sort: '-updatedAt' },
      { spaceIds: [spaces.door], sort: 'createdAt' },
      { spaceIds: [spaces.floor1], q: 'ab', enabled: true },
      { enabled: false },
      { q: 'zz', enabled: true, sort: '-name' },
      { sort: '-updatedAt', page: 3 },
      // A space's own name index: several spaces, people in more than one, reversed, deep.
      { spaceIds: [spaces.door, spaces.floor1, spaces.floor2, spaces.site], page: 2 },
      { spaceIds: [spaces.door, spaces.floor1, spaces.floor2, spaces.site], sort: '-name' },
      { spaceIds: [spaces.door, spaces.floor1], q: 'abe', pageSize: 1 },
      { spaceIds: [spaces.door], q: 'fil', sort: '-name', page: 2 },
      { spaceIds: [spaces.door], q: 'filler 0', page: 3, pageSize: 2 },
    ];
    for (const variant of variants) {
      const search = { ...base, ...variant };
      const reference = await searchPeople(server.ctx, search);
      // lookup 0 walks indexes with hashed sets; a tiny count cap turns spaces into probes;
      // a huge lookup sorts candidate sets.
      // spaceIndex false: a space's name order from the people's name index instead.
      for (const [lookup, spaceIndex] of [0, 1, 3, 1_000_000].flatMap((l) => [
        [l, false] as const,
        [l, true] as const,
      ])) {
        for (const countCap of [2, 10_000]) {
          const answer = await searchPeople(server.ctx, {
            ...search,
            tuning: { lookup, countCap, spaceIndex },
          });
          const label = [variant, lookup, spaceIndex, countCap];
          expect([label, answer.ids]).toEqual([label, reference.ids]);
          // Exact up to the cap; a capped total is never more than the truth.
          const exact = {
            total: Math.min(reference.total, countCap),
            capped: reference.total > countCap,
          };
          if (answer.totalCapped && !exact.capped) {
            expect([label, answer.total <= reference.total]).toEqual([label, true]);
          } else {
            expect([label, answer.total, answer.totalCapped]).toEqual([
              label,
              exact.total,
              exact.capped,
            ]);
          }
        }
      }
    }
    // An oracle for one of them: names starting "a" or IDs starting "A", in doors and floor 1.
    const oracle = all
      .filter(
        (p) =>
          p.spaceIds.some((s) => s === spaces.door || s === spaces.floor1) &&
          (nameKey(p.name).startsWith('a') || p.idNumber.startsWith(canonicalIdNumber('a'))),
      )
      .map((p) => p.id);
    const found = await searchPeople(server.ctx, {
      ...base,
      pageSize: 200,
      q: 'a',
      spaceIds: [spaces.door, spaces.floor1],
    });
    expect(new Set(found.ids)).toEqual(new Set(oracle));
  }, 180_000);

  // Hundreds of requests: on a loaded machine more than jest's 30 s.
  test('injection corpus on every parameter: 400 or correct results, never a 500', async () => {
    const corpus = [
      "' OR 1=1 --",
      "'; DROP TABLE people; --",
      '" OR ""="',
      '%',
      '_',
      '\\',
      '!',
      '%_\\!',
      'per%',
      'under_',
      'back\\',
      'bang!',
      "o'b",
      'x'.repeat(10_000),
      '😀',
      'שלום',
      '\u202Eevil',
      '\u0000',
      'a\u0000b',
      '../../etc/passwd',
      '-1',
      '0',
      '1e309',
      'NaN',
      'null',
      '[object Object]',
      '\uFFFF',
      'ab-1',
    ];
    const idValid = (id: string) => idNumberSchema.safeParse(id).success;
    // What q must find: the rules of the search, restated over the people of this organization.
    const oracle = (value: string) => {
      const trimmed = value.trim();
      const key = nameKey(trimmed);
      const id = canonicalIdNumber(trimmed);
      return all
        .filter(
          (p) =>
            trimmed === '' ||
            (key !== '' && nameKey(p.name).startsWith(key)) ||
            (id !== '' && idValid(id) && p.idNumber.startsWith(id)),
        )
        .map((p) => p.id)
        .sort();
    };
    const params = ['q', 'spaceId', 'sort', 'page', 'pageSize', 'enabled', 'includeDescendants'];
    const raw = ['%ED%A0%80', '%FF', '%00', '%', '%%27'];
    for (const param of params) {
      const values = [...corpus.map(encodeURIComponent), ...raw];
      for (const value of values) {
        const extra = param === 'pageSize' ? '' : '&pageSize=200';
        const reply = await admin.get(`/api/people?${param}=${value}${extra}`);
        const ok = reply.status === 200 ? 200 : 400;
        expect({ param, value, status: reply.status }).toEqual({ param, value, status: ok });
        if (reply.status !== 200 || param !== 'q') continue;
        const page = reply.body as Page;
        const decoded = (() => {
          try {
            return decodeURIComponent(value);
          } catch {
            return undefined;
          }
        })();
        if (decoded === undefined) continue;
        expect([value, page.items.map((p) => p.id).sort()]).toEqual([value, oracle(decoded)]);
        expect(page.total).toBe(page.items.length);
      }
      const twice = await admin.get(`/api/people?${param}=a&${param}=b`);
      expect({ param, status: twice.status }).toEqual({
        param,
        status: twice.status === 200 ? 200 : 400,
      });
    }
    // Metacharacters matter: these find exactly the person whose name holds them.
    expect(names(await list(q('per%')))).toEqual(['Per%cent Test']);
    expect(names(await list(q('under_')))).toEqual(['Under_score Test']);
    expect(names(await list(q('back\\')))).toEqual(['Back\\slash Test']);
    expect(names(await list(q('bang!')))).toEqual(['Bang! Test']);
    expect(names(await list(q("o'b")))).toEqual(["O'Brien Quote"]);
    expect(names(await list(q('😀')))).toEqual(['😀 Smiley']);
    expect(names(await list(q('😃')))).toEqual([]);
    expect(names(await list(q('שלום')))).toEqual(['שלום עליכם']);
    expect((await list(q('%'))).total).toBe(0);
    // Hostile names are stored and found verbatim (a bidi override is refused: field-codes).
    const hostile = "'; DROP TABLE people; -- 😀 %_";
    const created = await admin.post('/api/people', { name: hostile, idNumber: 'INJ-1' });
    expect(created.status).toBe(201);
    expect(names(await list(q("'; drop")))).toEqual([hostile]);
    expect((await admin.get(`/api/people/${(created.body as PersonOut).id}`)).body).toMatchObject({
      name: hostile,
    });
    await admin.request('DELETE', `/api/people/${(created.body as PersonOut).id}`, { csrf: true });
    expect(server.logs.lines.filter((l) => l.level === 50)).toEqual([]);
  }, 180_000);

  test('a large space with a broad q counts a bounded window: exact when it ends inside', async () => {
    const search: PeopleSearch = {
      organizationId: orgId,
      sort: 'name',
      page: 1,
      pageSize: 50,
      q: 'fil',
      spaceIds: [spaces.door],
    };
    // lookup 1 and a small cap make both sets "large", so the count reads a window of the
    // "fil" range (30 fillers, 10 of them with access to the door).
    const inside = await searchPeople(server.ctx, {
      ...search,
      tuning: { lookup: 1, countCap: 12, window: 100 },
    });
    expect(inside.ids).toHaveLength(FILLERS / 3);
    // The whole range fitted in the window: exact.
    expect(inside).toMatchObject({ total: FILLERS / 3, totalCapped: false });
    const firstSix = all
      .filter((p) => p.name.startsWith('Filler'))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .slice(0, 6)
      .filter((p) => p.spaceIds.includes(spaces.door)).length;
    expect(firstSix).toBeLessThan(FILLERS / 3);
    const part = await searchPeople(server.ctx, {
      ...search,
      tuning: { lookup: 1, countCap: 12, window: 6 },
    });
    // Only the first 6 fillers were read: a lower bound, flagged as such.
    expect(part).toMatchObject({ total: firstSix, totalCapped: true });
    const capped = await searchPeople(server.ctx, {
      ...search,
      tuning: { lookup: 1, countCap: 5, window: 100 },
    });
    expect(capped).toMatchObject({ total: 5, totalCapped: true });
  });

  test("a rename moves the person in their spaces' name order at once", async () => {
    const door = async () => names(await list(`spaceId=${spaces.door}&pageSize=200`));
    expect((await door())[0]).toBe('Abe Lincoln');
    const abe = byName.get('Abe Lincoln')!;
    const rename = async (name: string, extra: object = {}) =>
      expect(
        (
          await admin.request('PATCH', `/api/people/${abe.id}`, {
            body: { name, ...extra },
            csrf: true,
          })
        ).status,
      ).toBe(200);
    await rename('Zed Lincoln');
    expect((await door()).at(-1)).toBe('Zed Lincoln');
    expect(names(await list(`spaceId=${spaces.floor1}&q=zed`))).toEqual(['Zed Lincoln']);
    expect(names(await list(`spaceId=${spaces.floor1}&q=abe`))).toEqual([]);
    // Renamed with the same access sent along (no access rows rewritten), and back.
    await rename('Abe Lincoln', { spaceIds: [spaces.floor1, spaces.door] });
    expect((await door())[0]).toBe('Abe Lincoln');
    const rows = await server.ctx.models.PersonSpace.findAll({ where: { personId: abe.id } });
    expect(rows.map((r) => r.nameKey)).toEqual(['abe lincoln', 'abe lincoln']);
  });

  test('a superadmin searches across organizations', async () => {
    const superadmin = await signedIn(server, 'superadmin');
    const reply = await superadmin.get(`/api/people?${q('elodie')}`);
    const page = reply.body as Page;
    expect(page.items.map((p) => p.name).sort()).toEqual([
      'Elodie Outsider',
      'elodie Durand',
      'Élodie Martin',
    ]);
    expect(new Set(page.items.map((p) => p.organizationId)).size).toBe(2);
  });
});

describe.each(DIALECTS)(
  'people search by a superadmin of a one-organization site on %s',
  (dialect) => {
    test('reads as that organization (its indexes) and finds the same people', async () => {
      const scratch = await scratchDb(dialect);
      const server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
      try {
        const superadmin = await signedIn(server, 'superadmin');
        const space = (await superadmin.post('/api/spaces', { name: 'Site' })).body as SpaceOut;
        for (const [name, idNumber] of NAMED) {
          const reply = await superadmin.post('/api/people', {
            name,
            idNumber,
            spaceIds: [space.id],
          });
          expect(reply.status).toBe(201);
        }
        const names = async (query: string) =>
          ((await superadmin.get(`/api/people?${query}&pageSize=200`)).body as Page).items.map(
            (p) => p.name,
          );
        expect(await names('q=elo')).toEqual(['elodie Durand', 'Élodie Martin']);
        expect(await names('q=ab-10')).toEqual(['elodie Durand', 'Élodie Martin']);
        expect(await names(`spaceId=${space.id}&sort=-name`)).toHaveLength(NAMED.length);
        const all = await searchPeople(server.ctx, {
          organizationId: null,
          sort: 'name',
          page: 1,
          pageSize: 200,
        });
        expect(all).toMatchObject({ total: NAMED.length, totalCapped: false });
      } finally {
        await server.stop();
        await scratch.drop();
      }
    });
  },
);
