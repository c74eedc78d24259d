import type { TerminalHandle } from '@svc/sim';
import {
  configureResponse,
  enrollmentAnswer,
  enrollmentChangeList,
  enrollmentChangeOut,
  terminalSpaces,
} from '@svc/shared';
import { plainJpeg } from '../test/images.js';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { discoverySuite } from '../test/discovery-suite.js';
import { errorCode, type TestClient } from '../test/http-client.js';
import { createOrganization } from '../test/org-fixtures.js';
import { createTerminalClient } from '../discovery/terminal-client.js';
import { beat, createSpace, registerSim, type SimDevice } from '../test/sync-setup.js';
import { until } from '../test/wait.js';

/**
 * Issue 20, finding 2, end to end: a simulated enrollment terminal configured through
 * discovery (real UDP), simulated devices fed by the push worker. A terminal token alone may
 * neither grant spaces nobody gave the terminal nor put another face on an existing person.
 */
describe.each(DIALECTS)('enrollment rights on %s', (dialect) => {
  let admin: TestClient;
  let terminal: TerminalHandle;
  let doorSpace: string;
  let vaultSpace: string;
  const devices: SimDevice[] = [];

  const photo = async (red: number) => (await plainJpeg(320, 240, red)).toString('base64');
  const onDevices = (personId: string) => devices.map((d) => d.sim.person(personId)?.photoSha256);
  const person = async (id: string) => (await suite.server.ctx.models.Person.findByPk(id))!;

  afterAll(async () => {
    for (const d of devices) await d.sim.stop();
  });
  const suite = discoverySuite(dialect, {
    env: { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: '1' },
    infra: { terminalClient: createTerminalClient(800) },
  });
  beforeAll(async () => {
    const { server } = suite;
    admin = await signedIn(server, 'admin');
    doorSpace = await createSpace(admin, 'Front door');
    vaultSpace = await createSpace(admin, 'Vault');
    for (let i = 0; i < 2; i++) devices.push(await registerSim(server, admin, doorSpace));
    await beat(...devices);

    terminal = await suite.terminal({ id: `ENR-TRUST-${dialect}`, kind: 'enrollment' });
    const configured = await admin.post('/api/discovery/configure', {
      ids: [terminal.id],
      centralUrl: server.url,
    });
    expect(configureResponse.parse(configured.body).results[0]?.ok).toBe(true);
  });

  test('a terminal with no assigned spaces grants none; an administrator assigns them', async () => {
    const before = await suite.server.ctx.models.Person.count();
    const refused = await terminal.enroll({
      name: 'Mallory',
      idNumber: 'TRUST-0',
      photo: await photo(30),
      spaceIds: [doorSpace],
    });
    expect(refused?.status).toBe(403);
    expect(JSON.stringify(refused?.body)).toContain(doorSpace);
    expect(await suite.server.ctx.models.Person.count()).toBe(before);
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'enrollment.spaces_refused', outcome: 'denied' },
      }),
    ).toBe(1);

    const none = await admin.get(`/api/terminals/${terminal.id}/spaces`);
    expect(terminalSpaces.parse(none.body).spaceIds).toEqual([]);
    const set = await admin.request('PUT', `/api/terminals/${terminal.id}/spaces`, {
      body: { spaceIds: [doorSpace] },
      csrf: true,
    });
    expect([set.status, set.body]).toEqual([
      200,
      { terminalId: terminal.id, spaceIds: [doorSpace] },
    ]);
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'terminal.spaces_change', targetId: terminal.id },
    });
    expect(audit?.summary).toContain(`none → ${doorSpace}`);

    // The assigned space is granted; one it was not given is still refused, by name.
    const vault = await terminal.enroll({
      name: 'Mallory',
      idNumber: 'TRUST-0',
      photo: await photo(30),
      spaceIds: [doorSpace, vaultSpace],
    });
    expect([vault?.status, (vault?.body as { error: { message: string } }).error.message]).toEqual([
      403,
      expect.stringContaining(vaultSpace),
    ]);
    expect((vault?.body as { error: { message: string } }).error.message).not.toContain(doorSpace);
    expect(await suite.server.ctx.models.Person.count()).toBe(before);
  });

  test('a re-enrollment with another face changes nobody until an administrator approves', async () => {
    await admin.request('PUT', `/api/terminals/${terminal.id}/spaces`, {
      body: { spaceIds: [doorSpace] },
      csrf: true,
    });
    const created = await terminal.enroll({
      name: 'Alice Example',
      idNumber: 'TRUST-1',
      photo: await photo(60),
      spaceIds: [doorSpace],
    });
    expect(created?.status).toBe(201);
    const id = enrollmentAnswer.parse(created?.body).id;
    const original = (await person(id)).photoSha256!;
    await until('both devices hold the enrolled photo', () =>
      onDevices(id).every((sha) => sha === original),
    );

    // Another face on the same ID number: 200 as before, but held for review.
    const attack = await terminal.enroll({
      name: 'Alice Example',
      idNumber: 'TRUST-1',
      photo: await photo(200),
    });
    expect(attack?.status).toBe(200);
    const answer = enrollmentAnswer.parse(attack?.body);
    expect(answer).toEqual({ id, pending: true, changeId: expect.any(String) });
    expect(await person(id)).toMatchObject({ photoSha256: original, version: 1 });

    const pending = enrollmentChangeList.parse(
      (await admin.get(`/api/enrollment/changes?state=pending&personId=${id}`)).body,
    );
    expect(pending.items.map((c) => c.id)).toEqual([answer.changeId]);
    const change = enrollmentChangeOut.parse(
      (await admin.get(`/api/enrollment/changes/${answer.changeId}`)).body,
    );
    expect(change).toMatchObject({
      personId: id,
      terminalId: terminal.id,
      state: 'pending',
      oldPhotoSha256: original,
    });
    expect(change.newPhotoSha256).not.toBe(original);
    for (const which of ['old', 'new'] as const) {
      const shown = await admin.get(`/api/enrollment/changes/${change.id}/photo?which=${which}`);
      const sha = which === 'old' ? change.oldPhotoSha256! : change.newPhotoSha256;
      expect([shown.status, shown.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
      expect(Number(shown.headers.get('content-length'))).toBe(
        (await suite.server.ctx.photos.read(sha))!.length,
      );
    }

    // A full planning and push pass later the devices still hold the original, and no task
    // carries the new photo.
    await suite.server.ctx.sync.worker!.runOnce({ forcePlan: true });
    expect(onDevices(id)).toEqual([original, original]);
    expect(
      await suite.server.ctx.models.SyncTask.count({
        where: { personId: id, photoSha256: change.newPhotoSha256 },
      }),
    ).toBe(0);

    // An operator may look but not decide.
    const operator = await signedIn(suite.server, 'operator');
    const denied = await operator.post(`/api/enrollment/changes/${change.id}/approve`, {});
    expect([denied.status, errorCode(denied)]).toEqual([403, 'forbidden']);

    const approved = await admin.post(`/api/enrollment/changes/${change.id}/approve`, {});
    expect([approved.status, enrollmentChangeOut.parse(approved.body).state]).toEqual([
      200,
      'approved',
    ]);
    expect(await person(id)).toMatchObject({ photoSha256: change.newPhotoSha256, version: 2 });
    await until('both devices hold the approved photo', () =>
      onDevices(id).every((sha) => sha === change.newPhotoSha256),
    );
    const again = await admin.post(`/api/enrollment/changes/${change.id}/reject`, {});
    expect([again.status, errorCode(again)]).toEqual([409, 'conflict']);
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'enrollment.change_approve', targetId: id },
      }),
    ).toBe(1);
  });

  test('a rejected re-enrollment leaves the person as they are, and is audited', async () => {
    const created = await terminal.enroll({
      name: 'Bob Example',
      idNumber: 'TRUST-2',
      photo: await photo(90),
    });
    const id = enrollmentAnswer.parse(created?.body).id;
    const original = await person(id);
    const renamed = await terminal.enroll({
      name: 'Robert Impostor',
      idNumber: 'TRUST-2',
      photo: await photo(140),
    });
    const { changeId } = enrollmentAnswer.parse(renamed?.body);
    const rejected = await admin.post(`/api/enrollment/changes/${changeId}/reject`, {});
    expect([rejected.status, enrollmentChangeOut.parse(rejected.body).state]).toEqual([
      200,
      'rejected',
    ]);
    expect(await person(id)).toMatchObject({
      name: 'Bob Example',
      photoSha256: original.photoSha256,
      version: original.version,
    });
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'enrollment.change_reject', targetId: id },
      }),
    ).toBe(1);
    const listed = enrollmentChangeList.parse(
      (await admin.get('/api/enrollment/changes?state=rejected')).body,
    );
    expect(listed.items.map((c) => c.id)).toContain(changeId);
    // Another organization's administrator sees neither the change nor the terminal.
    const foreign = await signedIn(
      suite.server,
      'admin',
      undefined,
      await createOrganization(suite.server, 'Elsewhere'),
    );
    const theirs = enrollmentChangeList.parse((await foreign.get('/api/enrollment/changes')).body);
    expect(theirs.total).toBe(0);
    for (const path of [
      `/api/enrollment/changes/${changeId}`,
      `/api/enrollment/changes/${changeId}/photo`,
      `/api/terminals/${terminal.id}/spaces`,
    ]) {
      expect((await foreign.get(path)).status).toBe(404);
    }
    const decide = await foreign.post(`/api/enrollment/changes/${changeId}/approve`, {});
    expect(decide.status).toBe(404);
  });
});
