import { randomBytes, randomUUID } from 'node:crypto';
import type { LookAlikeOut, PersonFaceOut } from '@svc/shared';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import { TestClient } from '../../test/http-client.js';
import { myOrganization, signedIn } from '../../test/admins.js';
import { person, send } from '../../test/images.js';
import { blankPhoto, FACES, faceCrop, groupPhoto } from '../../test/faces.js';

type Upload = Awaited<ReturnType<typeof send>> & {
  json?: { face?: { faces: number; box: { height: number } | null }; lookAlikes?: LookAlikeOut[] };
};

/** Issue 26: the face check with real faces (face-api's demo photos and crops of them). */
describe.each(DIALECTS)('face check on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let orgId: string;

  const upload = (id: string, image: Buffer, accept = false) =>
    send(admin, 'PUT', `/api/people/${id}/photo${accept ? '?acceptFace=true' : ''}`, image, {
      'content-type': 'image/jpeg',
    }) as Promise<Upload>;
  const face = async (id: string) =>
    (await admin.get(`/api/people/${id}/face`)).body as PersonFaceOut;

  /** A space with one device asking for faces at least `minFacePx` high. */
  async function gate(name: string, minFacePx: number): Promise<string> {
    const space = await admin.post('/api/spaces', { name });
    expect(space.status).toBe(201);
    const spaceId = (space.body as { id: string }).id;
    const device = await admin.post('/api/devices', {
      sn: `SN${randomUUID().slice(0, 8)}`,
      name: `${name} reader`,
      baseUrl: 'http://127.0.0.1:9',
      spaceId,
      minFacePx,
    });
    expect(device.status).toBe(201);
    expect(device.body).toMatchObject({ minFacePx });
    return spaceId;
  }

  const suite = suiteServer(dialect, { env: { FACE_CHECK: 'on' } });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    orgId = await myOrganization(admin);
  }, 60_000);

  test('one face passes, with its box, score and sharpness stored and shown', async () => {
    const id = await person(server, orgId);
    const reply = await upload(id, await faceCrop(FACES.sample3Left));
    expect(reply.status).toBe(200);
    expect(reply.json?.face).toMatchObject({ faces: 1, problems: [], acceptedBy: null });
    expect(reply.json?.face?.box?.height).toBeGreaterThan(150);
    const shown = await face(id);
    expect(shown.check).toMatchObject({ faces: 1, problems: [] });
    expect(shown.check!.score).toBeGreaterThan(0.5);
    expect(shown.check!.sharpness).toBeGreaterThan(80);
    expect(shown.check!.box!.height).toBe(reply.json!.face!.box!.height);
  });

  test.each([
    ['a group photo', () => groupPhoto(1), /^3 faces found: crop to one person$/],
    ['a blank image', blankPhoto, /^no face found: use a photo of the person’s face/],
    ['a blurred face', () => faceCrop(FACES.sample1Left, { blur: 2 }), /^the face is blurred/],
  ])('%s is refused with its reason and nothing changes', async (_what, image, reason) => {
    const id = await person(server, orgId);
    const reply = await upload(id, await image());
    expect(reply.status).toBe(422);
    expect(reply.json?.error).toMatchObject({ code: 'face_check_failed' });
    const body = reply.json as unknown as { error: { fields: { photo: string } } };
    expect(body.error.fields.photo).toMatch(reason);
    expect((await server.ctx.models.Person.findByPk(id))?.photoSha256).toBeNull();
    expect((await face(id)).check).toBeNull();
  });

  test('a face below the strictest device’s minimum is refused naming the space', async () => {
    const spaceId = await gate('Gate A', 400);
    const id = await person(server, orgId);
    await server.ctx.models.PersonSpace.create({ personId: id, spaceId, nameKey: 'x' });
    const reply = await upload(id, await faceCrop(FACES.sample3Left));
    expect(reply.status).toBe(422);
    const body = reply.json as unknown as { error: { message: string } };
    expect(body.error.message).toMatch(/the face is \d+ px high; devices in Gate A need 400/);

    // The administrator accepts it anyway: stored, with who accepted it, and audited.
    const accepted = await upload(id, await faceCrop(FACES.sample3Left), true);
    expect(accepted.status).toBe(200);
    expect(accepted.json?.face).toMatchObject({ acceptedBy: expect.any(String) });
    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'person.photo_face_accepted', targetId: id },
    });
    expect(audit?.summary).toMatch(/devices in Gate A need 400/);
    const check = (await face(id)).check!;
    expect(check.problems[0]).toMatch(/Gate A need 400/);
    // The same by code and values, for the site to word in its reader's language (issue 34).
    const small = {
      code: 'face_small',
      params: {
        height: expect.any(Number),
        need: 400,
        devices: 'face_devices_in',
        space: 'Gate A',
      },
    };
    expect(check.reasons).toEqual([small]);
    expect(JSON.parse(audit!.summaryMessage!)).toEqual({
      code: 'photo_face_accepted',
      params: { ...small.params, reasons: 'face_small' },
    });
    // A check stored before codes holds English sentences: they stand, with no codes.
    await server.ctx.db.sequelize.query(
      'UPDATE person_faces SET problems = ? WHERE person_id = ?',
      {
        replacements: [JSON.stringify(['the face is small (stored before codes)']), id],
      },
    );
    expect((await face(id)).check).toMatchObject({
      problems: ['the face is small (stored before codes)'],
      reasons: null,
    });
  });

  test('the same person from another photo looks alike; a different person does not', async () => {
    const first = await person(server, orgId);
    expect((await upload(first, await faceCrop(FACES.sample1Right))).status).toBe(200);
    const firstRow = await server.ctx.models.Person.findByPk(first);

    const same = await person(server, orgId);
    const reply = await upload(same, await faceCrop(FACES.sample4Right));
    expect(reply.status).toBe(200);
    expect(reply.json?.lookAlikes).toEqual([
      {
        personId: first,
        name: firstRow!.name,
        idNumber: firstRow!.idNumber,
        distance: expect.any(Number),
      },
    ]);
    expect((await face(same)).lookAlikes.map((l) => l.personId)).toEqual([first]);

    const other = await person(server, orgId);
    const different = await upload(other, await faceCrop(FACES.sample1Left));
    expect(different.status).toBe(200);
    expect(different.json?.lookAlikes).toEqual([]);
  });

  test('the descriptor goes with the person and is never in the logs', async () => {
    const id = await person(server, orgId);
    expect((await upload(id, await faceCrop(FACES.sample3Left))).status).toBe(200);
    const count = () =>
      server.ctx.db.sequelize.query('SELECT person_id FROM person_faces WHERE person_id = ?', {
        replacements: [id],
        plain: false,
      });
    expect((await count())[0]).toHaveLength(1);
    expect((await admin.request('DELETE', `/api/people/${id}`, { csrf: true })).status).toBe(204);
    expect((await count())[0]).toHaveLength(0);
    expect(server.logs.text()).not.toMatch(/descriptor/i);
  });

  test('an enrollment terminal is refused a group photo; a re-enrollment shows the distance', async () => {
    const nodeId = `ENR-${randomUUID().slice(0, 8)}`;
    const now = server.ctx.clock.now();
    await server.ctx.models.DiscoveredNode.create({
      ...{ id: nodeId, kind: 'enrollment', name: nodeId, model: 'sim', version: '1' },
      ...{ address: '127.0.0.1', port: 8182, central: '', lastSeen: now, createdAt: now },
    });
    const token = randomBytes(32).toString('base64url');
    await server.ctx.discovery.store.setToken(nodeId, token, orgId);
    const terminal = new TestClient(server.url, { authorization: `Bearer ${token}` });
    const enroll = async (image: Buffer) =>
      terminal.post(
        '/api/enrollment/persons',
        { name: 'Enrolled Woman', idNumber: 'ENR-0001', photo: image.toString('base64') },
        { csrf: false },
      );

    const group = await enroll(await groupPhoto(4));
    expect(group.status).toBe(422);
    expect(group.body).toMatchObject({ error: { code: 'face_check_failed' } });
    expect(await server.ctx.models.Person.count({ where: { idNumber: 'ENR-0001' } })).toBe(0);

    const created = await enroll(await faceCrop(FACES.sample1Left));
    expect(created.status).toBe(201);
    const again = await enroll(await faceCrop(FACES.sample3Left));
    expect(again.body).toMatchObject({ pending: true });
    const { changeId } = again.body as { changeId: string };
    const change = (await admin.get(`/api/enrollment/changes/${changeId}`)).body as {
      faceDistance: number | null;
    };
    // Two different women: far apart (the same woman measures under 0.5).
    expect(change.faceDistance).toBeGreaterThan(0.6);
  });
});
