import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { formatMessage, type PersonOut, type SpaceOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import { TestClient, errorCode, type Reply } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { secondOrganization } from '../test/factories.js';
import { createPerson, deletePerson, findByIdNumber, updatePerson } from './service.js';

const fields = (reply: Reply) =>
  (reply.body as { error: { fields?: Record<string, string> } }).error.fields ?? {};
const newId = () => `T-${randomUUID().slice(0, 8).toUpperCase()}`;

describe.each(DIALECTS)('people on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let orgId: string;
  let adminId: string;
  const patch = (client: TestClient, id: string, body: unknown) =>
    client.request('PATCH', `/api/people/${id}`, { body, csrf: true });
  const del = (client: TestClient, id: string) =>
    client.request('DELETE', `/api/people/${id}`, { csrf: true });
  const space = async (client: TestClient, name: string, parentId?: string) =>
    ((await client.post('/api/spaces', { name, parentId })).body as SpaceOut).id;
  const actor = () => ({
    actor: { id: adminId, name: 'test' },
    organizationId: orgId,
    ip: '127.0.0.1',
  });

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    const username = `people-${randomUUID().slice(0, 8)}`;
    admin = await signedIn(server, 'admin', username);
    const me = await server.ctx.models.Administrator.findOne({ where: { username } });
    orgId = me!.organizationId;
    adminId = me!.id;
  });

  test('create, read, update any subset, delete', async () => {
    const s1 = await space(admin, 'Entrance');
    const created = await admin.post('/api/people', {
      name: '  Zoë Ångström ',
      idNumber: 'ab 123-x',
      spaceIds: [s1, s1],
      phone: '+1 (555) 010-0000',
      notes: 'Test notes',
      validFrom: '2026-01-01T00:00:00.000Z',
      validUntil: '2027-01-01T00:00:00.000Z',
    });
    expect(created.status).toBe(201);
    const person = created.body as PersonOut;
    expect(person).toMatchObject({
      organizationId: orgId,
      name: 'Zoë Ångström',
      idNumber: 'AB 123-X',
      spaceIds: [s1],
      phone: '+1 (555) 010-0000',
      notes: 'Test notes',
      validFrom: '2026-01-01T00:00:00.000Z',
      validUntil: '2027-01-01T00:00:00.000Z',
      enabled: true,
      photoSha256: null,
      version: 1,
    });
    const row = await server.ctx.models.Person.findByPk(person.id);
    expect(row!.nameKey).toBe('zoe angstrom');

    expect((await admin.get(`/api/people/${person.id}`)).body).toEqual(person);
    const changed = await patch(admin, person.id, { phone: null, notes: 'Other', enabled: false });
    expect(changed.status).toBe(200);
    const after = changed.body as PersonOut;
    expect(after).toEqual({
      ...person,
      phone: null,
      notes: 'Other',
      enabled: false,
      version: 2,
      updatedAt: after.updatedAt,
      etag: after.etag,
    });
    expect(after.updatedAt >= person.updatedAt).toBe(true);
    expect(after.etag).not.toBe(person.etag);

    expect((await del(admin, person.id)).status).toBe(204);
    expect((await admin.get(`/api/people/${person.id}`)).status).toBe(404);
    expect((await patch(admin, person.id, { name: 'Gone' })).status).toBe(404);
    expect((await del(admin, person.id)).status).toBe(404);
  });

  test('an ID number is unique per organization, case-insensitively: 409 naming the field', async () => {
    const idNumber = newId();
    expect((await admin.post('/api/people', { name: 'First', idNumber })).status).toBe(201);
    const again = await admin.post('/api/people', {
      name: 'Second',
      idNumber: idNumber.toLowerCase(),
    });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('conflict');
    expect(fields(again)).toEqual({ idNumber: formatMessage('id_number_used') });

    const other = (await admin.post('/api/people', { name: 'Other', idNumber: newId() }))
      .body as PersonOut;
    const clash = await patch(admin, other.id, { idNumber });
    expect(clash.status).toBe(409);
    expect(fields(clash)).toHaveProperty('idNumber');
    // Re-saving one's own number is not a conflict.
    expect((await patch(admin, other.id, { idNumber: other.idNumber.toLowerCase() })).status).toBe(
      200,
    );

    // Another organization may use the same number.
    const otherOrg = await secondOrganization(server);
    const stranger = await signedIn(server, 'admin', undefined, otherOrg);
    expect((await stranger.post('/api/people', { name: 'Theirs', idNumber })).status).toBe(201);
    expect((await findByIdNumber(server.ctx, orgId, idNumber.toLowerCase()))?.name).toBe('First');
    expect((await findByIdNumber(server.ctx, otherOrg, idNumber))?.name).toBe('Theirs');
    expect(await findByIdNumber(server.ctx, orgId, 'NOBODY-1')).toBeNull();
  });

  test('spaceIds must be spaces of the organization; bad fields are 400 with fields', async () => {
    const otherOrg = await secondOrganization(server);
    const stranger = await signedIn(server, 'admin', undefined, otherOrg);
    const theirs = await space(stranger, 'Theirs');
    const mine = await space(admin, 'Mine');
    for (const spaceIds of [[randomUUID()], [theirs], [mine, theirs]]) {
      const reply = await admin.post('/api/people', { name: 'X', idNumber: newId(), spaceIds });
      expect(reply.status).toBe(400);
      expect(fields(reply)).toHaveProperty('spaceIds');
    }
    const p = (await admin.post('/api/people', { name: 'Y', idNumber: newId(), spaceIds: [mine] }))
      .body as PersonOut;
    expect(fields(await patch(admin, p.id, { spaceIds: [theirs] }))).toHaveProperty('spaceIds');
    expect((await admin.get(`/api/people/${p.id}`)).body).toMatchObject({ spaceIds: [mine] });

    const bad: [unknown, string][] = [
      [{ idNumber: newId() }, 'name'],
      [{ name: 'X' }, 'idNumber'],
      [{ name: 'X', idNumber: "1' OR '1'='1" }, 'idNumber'],
      [{ name: 'X', idNumber: 'A'.repeat(65) }, 'idNumber'],
      [{ name: 'X', idNumber: newId(), phone: 'call me' }, 'phone'],
      [{ name: 'X', idNumber: newId(), spaceIds: ['nope'] }, 'spaceIds.0'],
      [{ name: 'X', idNumber: newId(), enabled: 'yes' }, 'enabled'],
      [{ name: 'X', idNumber: newId(), validFrom: '2026-02-30' }, 'validFrom'],
      [{ name: 'X', idNumber: newId(), validFrom: '2026-01-01T08:00' }, 'validFrom'],
      [{ name: 'X', idNumber: newId(), notes: 'n'.repeat(1025) }, 'notes'],
      [{ name: 'Nul\u0000Byte', idNumber: newId() }, 'name'],
      [{ name: 'Two\nLines', idNumber: newId() }, 'name'],
    ];
    for (const [body, field] of bad) {
      const reply = await admin.post('/api/people', body);
      expect([reply.status, Object.keys(fields(reply))]).toEqual([400, [field]]);
    }
    // "ß" upper-cases to "SS": a 64-character number grows past the limit and is refused.
    const grown = await admin.post('/api/people', { name: 'X', idNumber: 'ß'.repeat(64) });
    expect(grown.status).toBe(400);
    expect(fields(grown)).toHaveProperty('idNumber');
  });

  test('validity window: validFrom before validUntil, on create and against stored values', async () => {
    const early = '2026-01-01T00:00:00.000Z';
    const late = '2026-06-01T00:00:00.000Z';
    const inverted = await admin.post('/api/people', {
      name: 'W',
      idNumber: newId(),
      validFrom: late,
      validUntil: early,
    });
    expect(inverted.status).toBe(400);
    expect(fields(inverted)).toHaveProperty('validUntil');
    const equal = await admin.post('/api/people', {
      name: 'W',
      idNumber: newId(),
      validFrom: late,
      validUntil: late,
    });
    expect(equal.status).toBe(400);

    const p = (await admin.post('/api/people', { name: 'W', idNumber: newId(), validFrom: late }))
      .body as PersonOut;
    expect(p).toMatchObject({ validFrom: late, validUntil: null });
    // Only validUntil is sent, but together with the stored validFrom it would be inverted.
    const before = await patch(admin, p.id, { validUntil: early });
    expect(before.status).toBe(400);
    expect(fields(before)).toEqual({ validUntil: formatMessage('valid_window') });
    const cleared = await patch(admin, p.id, { validFrom: null, validUntil: early });
    expect(cleared.body).toMatchObject({ validFrom: null, validUntil: early });
    const open = await patch(admin, p.id, { validUntil: null });
    expect(open.body).toMatchObject({ validFrom: null, validUntil: null });
  });

  test('a date-only validity is the whole day in the site time zone', async () => {
    // A superadmin's setting (settings/routes.ts); set directly, as an organization admin acts.
    await server.ctx.settings.set(SettingKey.timeZone, 'Asia/Shanghai');
    try {
      const created = await admin.post('/api/people', {
        name: 'Dated',
        idNumber: newId(),
        validFrom: '2026-03-01',
        validUntil: '2026-03-31',
      });
      expect(created.status).toBe(201);
      // Until 2026-03-31T23:59:59.999+08:00, from 2026-03-01T00:00+08:00 — not UTC midnights.
      expect(created.body).toMatchObject({
        validFrom: '2026-02-28T16:00:00.000Z',
        validUntil: '2026-03-31T15:59:59.999Z',
      });
      const p = created.body as PersonOut;
      // One day is a window of its own; a later edit resolves the same way.
      const oneDay = await patch(admin, p.id, {
        validFrom: '2026-04-02',
        validUntil: '2026-04-02',
      });
      expect(oneDay.body).toMatchObject({
        validFrom: '2026-04-01T16:00:00.000Z',
        validUntil: '2026-04-02T15:59:59.999Z',
      });
      const inverted = await patch(admin, p.id, { validUntil: '2026-04-01' });
      expect(inverted.status).toBe(400);
      expect(fields(inverted)).toEqual({ validUntil: formatMessage('valid_window') });
    } finally {
      await server.ctx.settings.remove(SettingKey.timeZone);
    }
  });

  test('a validity before 1970 or after 9999 is refused with the range, never moved', async () => {
    const range = formatMessage('date_range');
    expect(range).toBe('Use a date from 1970-01-01 to 9999-12-31.');
    for (const validFrom of [
      '0001-01-01',
      '0001-01-01T00:00:00.000Z',
      '1901-01-01',
      '1969-06-30',
    ]) {
      const refused = await admin.post('/api/people', {
        name: 'Old',
        idNumber: newId(),
        validFrom,
      });
      expect({ validFrom, status: refused.status, fields: fields(refused) }).toEqual({
        validFrom,
        status: 400,
        fields: { validFrom: range },
      });
    }
    const p = (
      await admin.post('/api/people', {
        name: 'Edge',
        idNumber: newId(),
        validFrom: '1970-01-01',
        validUntil: '9999-12-31',
      })
    ).body as PersonOut;
    expect(p).toMatchObject({ name: 'Edge', validUntil: '9999-12-31T23:59:59.999Z' });
    expect(p.validFrom?.slice(0, 4)).toMatch(/^19(69|70)$/);
    const later = await patch(admin, p.id, { validUntil: '0099-12-31' });
    expect(fields(later)).toEqual({ validUntil: range });
  });

  test('version rises with every change the devices see, and only then', async () => {
    const [a, b] = [await space(admin, 'Va'), await space(admin, 'Vb')];
    const p = (
      await admin.post('/api/people', { name: 'Ver Sion', idNumber: newId(), spaceIds: [a] })
    ).body as PersonOut;
    const steps: [unknown, number][] = [
      [{ notes: 'not for devices', phone: '123' }, 1],
      [{ name: 'Ver Sion' }, 1],
      [{ name: 'Ver Sion II' }, 2],
      [{ spaceIds: [b, a] }, 3],
      [{ spaceIds: [a, b] }, 3],
      [{ enabled: false }, 4],
      [{ enabled: false }, 4],
      [{ validUntil: '2030-01-01T00:00:00.000Z' }, 5],
      [{ validFrom: '2029-01-01T00:00:00.000Z' }, 6],
      [{ idNumber: newId() }, 7],
    ];
    for (const [body, version] of steps) {
      const reply = await patch(admin, p.id, body);
      expect([reply.status, (reply.body as PersonOut).version]).toEqual([200, version]);
    }
    const sha = 'a'.repeat(64);
    const withPhoto = await updatePerson(server.ctx, orgId, p.id, { photoSha256: sha }, actor());
    expect(withPhoto).toMatchObject({ version: 8, photoSha256: sha });
    await updatePerson(server.ctx, orgId, p.id, { photoSha256: null }, actor());
    const audits = await server.ctx.models.Audit.findAll({
      where: { targetId: p.id, action: 'person.update' },
      order: [['id', 'ASC']],
    });
    // One entry per effective change; none for the no-op PATCHes.
    expect(audits).toHaveLength(9);
    expect(audits[0]!.summary).toBe('Updated a person: phone, notes');
  });

  test('services are transaction-aware: a rolled-back caller leaves nothing behind', async () => {
    const idNumber = newId();
    const audits = await server.ctx.models.Audit.count();
    await expect(
      server.ctx.db.sequelize.transaction(async (t) => {
        await createPerson(server.ctx, orgId, { name: 'Rolled Back', idNumber }, actor(), t);
        expect(await findByIdNumber(server.ctx, orgId, idNumber, t)).not.toBeNull();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await findByIdNumber(server.ctx, orgId, idNumber)).toBeNull();
    expect(await server.ctx.models.Audit.count()).toBe(audits);
  });

  test('another organization’s people are 404 by id and never listed', async () => {
    const otherOrg = await secondOrganization(server);
    const stranger = await signedIn(server, 'admin', undefined, otherOrg);
    const s = await space(admin, 'Private');
    const mine = (
      await admin.post('/api/people', { name: 'Hidden Person', idNumber: newId(), spaceIds: [s] })
    ).body as PersonOut;
    expect((await stranger.get(`/api/people/${mine.id}`)).status).toBe(404);
    expect((await patch(stranger, mine.id, { name: 'Taken' })).status).toBe(404);
    expect((await del(stranger, mine.id)).status).toBe(404);
    for (const query of [
      '',
      'q=hidden',
      `q=${mine.idNumber}`,
      `spaceId=${s}`,
      `spaceId=${s}&includeDescendants=true`,
    ]) {
      const list = (await stranger.get(`/api/people?${query}`)).body as {
        items: PersonOut[];
        total: number;
      };
      expect(list.items.map((p) => p.organizationId).filter((o) => o !== otherOrg)).toEqual([]);
      expect(list.items.map((p) => p.id)).not.toContain(mine.id);
    }
    expect((await admin.get(`/api/people/${mine.id}`)).body).toMatchObject({
      name: 'Hidden Person',
    });
  });

  test('operators read but cannot create, update or delete', async () => {
    const operator = await signedIn(server, 'operator');
    const p = (await admin.post('/api/people', { name: 'Op Target', idNumber: newId() }))
      .body as PersonOut;
    expect((await operator.get(`/api/people/${p.id}`)).status).toBe(200);
    expect((await operator.get('/api/people?q=op')).status).toBe(200);
    expect((await operator.post('/api/people', { name: 'N', idNumber: newId() })).status).toBe(403);
    expect((await patch(operator, p.id, { name: 'N' })).status).toBe(403);
    expect((await del(operator, p.id)).status).toBe(403);
    expect((await new TestClient(server.url).get('/api/people')).status).toBe(401);
    expect((await admin.get(`/api/people/${p.id}`)).body).toMatchObject({
      name: 'Op Target',
      version: 1,
    });
  });

  test('erasure: row, space access and photo file go; the audit log keeps no name or ID number', async () => {
    const s = await space(admin, 'Erasure');
    const name = `Erased ${randomUUID().slice(0, 6)}`;
    const idNumber = newId();
    const p = (
      await admin.post('/api/people', {
        name,
        idNumber,
        spaceIds: [s],
        phone: '+9 (876)',
        notes: 'secret-note',
      })
    ).body as PersonOut;
    await patch(admin, p.id, {
      name: `${name} Jr`,
      notes: 'secret-note-2',
      idNumber: `${idNumber}9`,
    });
    const png = await sharp({
      create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 10, b: 10 } },
    })
      .png()
      .toBuffer();
    const stored = await server.ctx.photos.ingest(png);
    await updatePerson(server.ctx, orgId, p.id, { photoSha256: stored.sha256 }, actor());
    expect(await server.ctx.photos.read(stored.sha256)).toBeInstanceOf(Buffer);

    expect((await del(admin, p.id)).status).toBe(204);
    expect(await server.ctx.models.Person.count({ where: { id: p.id } })).toBe(0);
    expect(await server.ctx.models.PersonSpace.count({ where: { personId: p.id } })).toBe(0);
    expect(await server.ctx.photos.read(stored.sha256)).toBeUndefined();
    expect(await server.ctx.models.File.count({ where: { sha256: stored.sha256 } })).toBe(0);

    const entries = await server.ctx.models.Audit.findAll({ where: { targetId: p.id } });
    expect(entries.map((e) => e.action).sort()).toEqual([
      'person.create',
      'person.delete',
      'person.update',
      'person.update',
    ]);
    const text = JSON.stringify(entries.map((e) => e.get({ plain: true })));
    for (const secret of [name, idNumber, '+9 (876)', 'secret-note', stored.sha256]) {
      expect(text).not.toContain(secret);
    }
    expect(entries.find((e) => e.action === 'person.delete')!.summary).toBe(
      'Deleted a person and their space access and photo',
    );
  });

  test('a failing photo store never fails the erasure', async () => {
    const p = await createPerson(
      server.ctx,
      orgId,
      { name: 'Photo Fail', idNumber: newId() },
      actor(),
    );
    await updatePerson(server.ctx, orgId, p.id, { photoSha256: 'b'.repeat(64) }, actor());
    const failing = {
      ...server.ctx.photos,
      releaseIfUnreferenced: () => Promise.reject(new Error('store down')),
    };
    await deletePerson({ ...server.ctx, photos: failing }, orgId, p.id, actor());
    expect(await server.ctx.models.Person.count({ where: { id: p.id } })).toBe(0);
    expect(server.logs.text()).toContain('photo release failed');
  });
});
