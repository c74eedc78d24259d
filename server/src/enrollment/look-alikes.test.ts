import { randomBytes, randomUUID } from 'node:crypto';
import { enrollmentAnswerFace, type PersonFaceOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import { TestClient } from '../test/http-client.js';
import { myOrganization, signedIn } from '../test/admins.js';
import { person, send } from '../test/images.js';
import { FACES, faceCrop } from '../test/faces.js';

/**
 * Issue 32, item 4, as an attack: a terminal token enrolls a face that looks like a person of
 * its organization. The answer must not name who (a token would be a face-search oracle); the
 * site still shows who, and the audit log names the person ids.
 */
describe.each(DIALECTS)('look-alikes stay in the site on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let orgId: string;

  const suite = suiteServer(dialect, { env: { FACE_CHECK: 'on' } });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    orgId = await myOrganization(admin);
  }, 60_000);

  async function terminalClient(): Promise<TestClient> {
    const nodeId = `ENR-${randomUUID().slice(0, 8)}`;
    const now = server.ctx.clock.now();
    await server.ctx.models.DiscoveredNode.create({
      ...{ id: nodeId, kind: 'enrollment', name: nodeId, model: 'sim', version: '1' },
      ...{ address: '127.0.0.1', port: 8182, central: '', lastSeen: now, createdAt: now },
    });
    const token = randomBytes(32).toString('base64url');
    await server.ctx.discovery.store.setToken(nodeId, token, orgId);
    return new TestClient(server.url, { authorization: `Bearer ${token}` });
  }

  test('the terminal learns only that the face looks like someone, never the name, ID number or distance', async () => {
    const known = await person(server, orgId);
    const upload = await send(
      admin,
      'PUT',
      `/api/people/${known}/photo`,
      await faceCrop(FACES.sample1Right),
      {
        'content-type': 'image/jpeg',
      },
    );
    expect(upload.status).toBe(200);
    const knownRow = (await server.ctx.models.Person.findByPk(known))!;

    const terminal = await terminalClient();
    const enrolled = {
      name: 'Look Alike',
      idNumber: `LA-${randomUUID().slice(0, 6)}`,
      photo: (await faceCrop(FACES.sample4Right)).toString('base64'),
    };
    const reply = await terminal.post('/api/enrollment/persons', enrolled, { csrf: false });
    expect(reply.status).toBe(201);
    const text = JSON.stringify(reply.body);
    expect(text).not.toContain(knownRow.name);
    expect(text).not.toContain(knownRow.idNumber);
    expect(text).not.toContain(known);
    expect(text).not.toMatch(/distance|lookAlikes/);
    const answer = enrollmentAnswerFace.strict().parse(reply.body);
    // Created at once: nothing waits on a review, and the words do not say it does.
    expect(answer.notice).toEqual({
      code: 'look_alike_saved',
      message: 'Saved. The face looks like an existing person: an administrator will see it.',
    });

    // The same ID number again, under another name: a change held for approval.
    const again = await terminal.post(
      '/api/enrollment/persons',
      { ...enrolled, name: 'Look Alike Again' },
      { csrf: false },
    );
    expect(again.status).toBe(200);
    const held = enrollmentAnswerFace.strict().parse(again.body);
    expect(held).toMatchObject({ id: answer.id, pending: true });
    expect(held.notice).toEqual({
      code: 'look_alike_review_pending',
      message: 'Looks like an existing person: review pending.',
    });

    // The site shows who, to an administrator of the organization.
    const face = (await admin.get(`/api/people/${answer.id}/face`)).body as PersonFaceOut;
    expect(face.lookAlikes).toEqual([
      expect.objectContaining({
        personId: known,
        name: knownRow.name,
        idNumber: knownRow.idNumber,
      }),
    ]);
    const audits = await server.ctx.models.Audit.findAll({
      where: { action: 'enrollment.look_alike', targetId: answer.id },
    });
    expect(audits.map((a) => a.organizationId)).toEqual([orgId, orgId]);
    expect(audits.every((a) => a.summary.includes(known))).toBe(true);
    const codes = audits.map(
      (a) => (JSON.parse(a.summaryMessage ?? '{}') as { code?: string }).code,
    );
    expect(codes.sort()).toEqual(['enrollment_look_alike', 'enrollment_look_alike_saved']);
  });

  test('a face nobody resembles gets no notice', async () => {
    const terminal = await terminalClient();
    const reply = await terminal.post(
      '/api/enrollment/persons',
      {
        name: 'Nobody Alike',
        idNumber: `NA-${randomUUID().slice(0, 6)}`,
        photo: (await faceCrop(FACES.sample3Left)).toString('base64'),
      },
      { csrf: false },
    );
    expect(reply.status).toBe(201);
    expect(enrollmentAnswerFace.strict().parse(reply.body).notice).toBeUndefined();
  });
});
