import { randomBytes, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { TerminalConfig, TerminalConfigUpdate } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { secondOrganization } from '../test/factories.js';
import type { TestServer } from '../test/harness.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { jpegWithGps, plainJpeg } from '../test/images.js';

const newToken = () => randomBytes(32).toString('base64url');

describe.each(DIALECTS)('enrollment on %s', (dialect) => {
  let server: TestServer;
  let orgId: string;
  let otherOrgId: string;
  /** Tokens the fake terminal client was handed by /api/discovery/configure, by base URL. */
  const pushed = new Map<string, TerminalConfigUpdate>();

  const fakeTerminals = {
    push(base: string, body: TerminalConfigUpdate): Promise<TerminalConfig> {
      pushed.set(base, body);
      return this.read(base);
    },
    read(base: string): Promise<TerminalConfig> {
      const saved = pushed.get(base);
      return Promise.resolve({
        id: 'ENR-CFG',
        kind: 'enrollment',
        centralUrl: saved?.centralUrl ?? '',
        panelUrl: '',
        updatedAt: new Date().toISOString(),
      });
    },
  };

  /** A discovered terminal with a token, as configure leaves it. */
  async function terminal(
    kind: 'enrollment' | 'display',
    organizationId: string | undefined,
    id = `${kind === 'enrollment' ? 'ENR' : 'DSP'}-${randomUUID().slice(0, 8)}`,
  ) {
    const now = server.ctx.clock.now();
    await server.ctx.models.DiscoveredNode.create({
      id,
      kind,
      name: id,
      model: 'sim',
      version: '1',
      address: '127.0.0.1',
      port: 8182,
      central: '',
      lastSeen: now,
      createdAt: now,
    });
    const token = newToken();
    await server.ctx.discovery.store.setToken(id, token, organizationId);
    return { id, token };
  }

  const enrollAs = (token: string, body: unknown) =>
    new TestClient(server.url, { authorization: `Bearer ${token}` }).post(
      '/api/enrollment/persons',
      body,
      { csrf: false },
    );
  const photo = async (red = 100) => (await plainJpeg(640, 480, red)).toString('base64');
  const people = () => server.ctx.models.Person.count();

  const suite = suiteServer(dialect, { infra: { terminalClient: fakeTerminals } });
  beforeAll(async () => {
    server = suite.server;
    const org = await server.ctx.models.Organization.findOne();
    orgId = org!.id;
    otherOrgId = await secondOrganization(server, 'Other organization');
  });

  test('creates a person (201), then the same ID number holds name and photo for review (200)', async () => {
    const enr = await terminal('enrollment', otherOrgId);
    const now = server.ctx.clock.now();
    const spaceId = randomUUID();
    await server.ctx.models.Space.create({
      id: spaceId,
      organizationId: otherOrgId,
      parentId: null,
      name: 'Gate',
      createdAt: now,
      updatedAt: now,
    });
    // The administrator lets this terminal grant the gate (none by default).
    await server.ctx.models.TerminalSpace.create({ terminalId: enr.id, spaceId, createdAt: now });
    const created = await enrollAs(enr.token, {
      name: 'Enrolled Person',
      idNumber: 'EN-1001',
      photo: (await jpegWithGps(1200, 800)).toString('base64'),
      spaceIds: [spaceId],
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const row = await server.ctx.models.Person.findByPk(id);
    expect(row).toMatchObject({
      organizationId: otherOrgId,
      name: 'Enrolled Person',
      idNumber: 'EN-1001',
      enabled: true,
      version: 1,
    });
    expect(row!.photoSha256).toMatch(/^[0-9a-f]{64}$/);
    const first = row!.photoSha256!;
    const file = (sha: string) =>
      path.join(suite.scratch.dataDir, 'files', sha.slice(0, 2), sha.slice(2, 4), `${sha}.jpg`);
    expect((await stat(file(first))).isFile()).toBe(true);
    expect(
      await server.ctx.models.PersonSpace.findAll({ where: { personId: id }, raw: true }),
    ).toEqual([{ personId: id, spaceId, nameKey: 'enrolled person' }]);
    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'person.create', targetId: id },
    });
    expect(audit).toMatchObject({ actorName: `terminal ${enr.id}`, organizationId: otherOrgId });

    // Same ID number (in any letter case): the name and photo change waits for review.
    const updated = await enrollAs(enr.token, {
      name: 'Enrolled Person Renamed',
      idNumber: 'en-1001',
      photo: await photo(7),
      spaceIds: [],
    });
    expect(updated.status).toBe(200);
    const { changeId } = updated.body as { changeId: string };
    expect(updated.body).toEqual({ id, pending: true, changeId: expect.any(String) });
    expect(await server.ctx.models.Person.findByPk(id)).toMatchObject({
      name: 'Enrolled Person',
      photoSha256: first,
      version: 1,
    });
    const admin = await signedIn(server, 'admin', undefined, otherOrgId);
    expect((await admin.post(`/api/enrollment/changes/${changeId}/approve`, {})).status).toBe(200);
    const after = await server.ctx.models.Person.findByPk(id);
    expect(after).toMatchObject({ name: 'Enrolled Person Renamed', version: 2 });
    expect(after!.photoSha256).not.toBe(first);
    // The access stays; its copy of the name's key (the space listing's order) follows.
    expect(
      await server.ctx.models.PersonSpace.findAll({ where: { personId: id }, raw: true }),
    ).toEqual([{ personId: id, spaceId, nameKey: 'enrolled person renamed' }]);
    // The replaced photo stays with the change record (what was replaced, and by whom).
    expect((await stat(file(first))).isFile()).toBe(true);
    expect(await server.ctx.models.Person.count({ where: { organizationId: otherOrgId } })).toBe(1);
    // The same name and photo again change nothing: nothing to review.
    const same = await enrollAs(enr.token, {
      name: 'Enrolled Person Renamed',
      idNumber: 'EN-1001',
      photo: await photo(7),
    });
    expect([same.status, same.body]).toEqual([200, { id, pending: false }]);
  });

  test('two enrollments of one new ID number at once make one person', async () => {
    const enr = await terminal('enrollment', orgId);
    const replies = await Promise.all(
      [11, 12, 13].map(async (red) =>
        enrollAs(enr.token, { name: 'Twin', idNumber: 'TWIN-1', photo: await photo(red) }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(replies.map((r) => (r.body as { id: string }).id)).size).toBe(1);
    expect(await server.ctx.models.Person.count({ where: { idNumber: 'TWIN-1' } })).toBe(1);
  });

  test('re-enrollments of one person at once leave exactly one pending change', async () => {
    const enr = await terminal('enrollment', orgId);
    const created = await enrollAs(enr.token, {
      name: 'Carol',
      idNumber: 'RACE-1',
      photo: await photo(21),
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const replies = await Promise.all(
      [22, 23, 24, 25].map(async (red) =>
        enrollAs(enr.token, { name: 'Carol', idNumber: 'RACE-1', photo: await photo(red) }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const changes = await server.ctx.models.EnrollmentChange.findAll({ where: { personId: id } });
    expect(changes.map((c) => c.state).sort()).toEqual([
      'pending',
      'superseded',
      'superseded',
      'superseded',
    ]);
    expect((await server.ctx.models.Person.findByPk(id))!.version).toBe(1);
  });

  test('unknown, missing and revoked tokens are 401', async () => {
    const body = { name: 'Nobody', idNumber: 'X-1', photo: await photo() };
    const before = await people();
    const unknown = await enrollAs(newToken(), body);
    expect([unknown.status, errorCode(unknown)]).toEqual([401, 'unauthorized']);
    const missing = await new TestClient(server.url).post('/api/enrollment/persons', body, {
      csrf: false,
    });
    expect(missing.status).toBe(401);

    const enr = await terminal('enrollment', orgId);
    await server.ctx.discovery.store.setToken(enr.id, newToken(), orgId);
    const revoked = await enrollAs(enr.token, body);
    expect([revoked.status, errorCode(revoked)]).toEqual([401, 'unauthorized']);
    expect(await people()).toBe(before);
  });

  test('a display terminal’s token, or a terminal without an organization, is 403', async () => {
    const body = { name: 'Nobody', idNumber: 'X-2', photo: await photo() };
    const before = await people();
    const dsp = await terminal('display', orgId);
    const display = await enrollAs(dsp.token, body);
    expect([display.status, errorCode(display)]).toEqual([403, 'forbidden']);
    expect((display.body as { error: { message: string } }).error.message).toMatch(/display/);

    const legacy = await terminal('enrollment', undefined);
    const noOrg = await enrollAs(legacy.token, body);
    expect([noOrg.status, errorCode(noOrg)]).toEqual([403, 'forbidden']);
    expect((noOrg.body as { error: { message: string } }).error.message).toMatch(
      /administrator must push the central address to it again/,
    );
    expect(await people()).toBe(before);
  });

  test('a refused photo creates nothing: not the person, not a file', async () => {
    const enr = await terminal('enrollment', orgId);
    const before = { people: await people(), files: await server.ctx.models.File.count() };
    const whole = await plainJpeg(800, 600, 3);
    const cases: [string, number, string][] = [
      [Buffer.from('just some text, renamed to .jpg').toString('base64'), 400, 'invalid_image'],
      [whole.subarray(0, whole.length >> 1).toString('base64'), 400, 'invalid_image'],
      ['%%% not base64 %%%', 400, 'invalid_input'],
    ];
    for (const [data, status, code] of cases) {
      const reply = await enrollAs(enr.token, { name: 'Refused', idNumber: 'R-1', photo: data });
      expect([reply.status, errorCode(reply)]).toEqual([status, code]);
    }
    const badSpace = await enrollAs(enr.token, {
      name: 'Refused',
      idNumber: 'R-1',
      photo: await photo(4),
      spaceIds: [randomUUID()],
    });
    expect([badSpace.status, errorCode(badSpace)]).toEqual([403, 'forbidden']);
    expect(await people()).toBe(before.people);
    expect(await server.ctx.models.File.count()).toBe(before.files);
  });

  test('a terminal configured by an administrator enrolls into that administrator’s organization', async () => {
    const now = server.ctx.clock.now();
    await server.ctx.models.DiscoveredNode.create({
      id: 'ENR-CFG',
      kind: 'enrollment',
      name: 'Configured',
      model: 'sim',
      version: '1',
      address: '127.0.0.1',
      port: 18182,
      central: '',
      lastSeen: now,
      createdAt: now,
    });
    const admin = await signedIn(server, 'admin', undefined, otherOrgId);
    const configured = await admin.post('/api/discovery/configure', {
      ids: ['ENR-CFG'],
      centralUrl: server.url,
    });
    expect(configured.status).toBe(200);
    const token = pushed.get('http://127.0.0.1:18182')?.token;
    expect(token).toBeDefined();
    expect((await server.ctx.models.DiscoveredNode.findByPk('ENR-CFG'))!.organizationId).toBe(
      otherOrgId,
    );

    const reply = await enrollAs(token!, {
      name: 'Configured Enrollee',
      idNumber: 'CFG-1',
      photo: await photo(9),
    });
    expect(reply.status).toBe(201);
    const row = await server.ctx.models.Person.findByPk((reply.body as { id: string }).id);
    expect(row!.organizationId).toBe(otherOrgId);
  });

  // Issue 32, item 1: a terminal token runs the same photo check as an upload, so a burst
  // through it is refused at once (503 with Retry-After) once the check is full, and creates
  // nobody, rather than waiting into a timeout that answers 500.
  test('with the photo check full, an enrollment is refused busy and creates nobody', async () => {
    const enr = await terminal('enrollment', orgId);
    const queue = server.ctx.photoWork.checks;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders: Promise<void>[] = [];
    while (queue.size < queue.capacity) {
      holders.push(queue.run(() => held, { background: true }));
    }
    const before = await people();
    try {
      const reply = await enrollAs(enr.token, {
        name: 'Busy Enrollee',
        idNumber: 'BUSY-1',
        photo: await photo(21),
      });
      expect(reply.status).toBe(503);
      expect(errorCode(reply)).toBe('service_busy');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await people()).toBe(before);
    } finally {
      release();
      await Promise.all(holders);
    }
    const after = await enrollAs(enr.token, {
      name: 'Busy Enrollee',
      idNumber: 'BUSY-1',
      photo: await photo(21),
    });
    expect(after.status).toBe(201);
  });
});
