import { startDevice } from '@svc/sim';
import { deviceWithKey, personOut } from '@svc/shared';
import { plainJpeg } from '../../test/images.js';
import { DIALECTS, type DialectName } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import { signedIn } from '../../test/admins.js';
import { beat, createSpace, registerSim } from '../../test/sync-setup.js';
import { until } from '../../test/wait.js';

/** A server of its own for the describe block, with the sync job on at `intervalS`. */
function jobServer(dialect: DialectName, intervalS: number): () => TestServer {
  const suite = suiteServer(dialect, {
    env: { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: String(intervalS) },
  });
  return () => suite.server;
}

describe.each(DIALECTS)('the sync job (SVC_PUSH_WORKER=1) on %s', (dialect) => {
  const started = jobServer(dialect, 1);

  test('runs by itself on the interval and pushes a new person to an online device', async () => {
    const server = started();
    expect(server.ctx.jobs.status().sync).toBe('running');
    const admin = await signedIn(server, 'admin');
    const space = await admin.post('/api/spaces', { name: 'Lobby' });
    const spaceId = (space.body as { id: string }).id;
    const sn = `JOB-${dialect}`;
    const sim = await startDevice({
      sn,
      bindAddress: '127.0.0.1',
      httpPort: 0,
      heartbeatIntervalMs: 0,
    });
    try {
      const reply = await admin.post('/api/devices', {
        sn,
        name: 'Lobby door',
        baseUrl: sim.url,
        spaceId,
      });
      const device = deviceWithKey.parse(reply.body);
      await sim.setConnection({ key: device.key, centralUrl: server.url });
      expect((await sim.heartbeatNow())?.status).toBe(200);
      const created = await admin.post('/api/people', {
        name: 'Job Test Person',
        idNumber: `JOB-${dialect}-1`,
        spaceIds: [spaceId],
      });
      const id = personOut.parse(created.body).id;
      const photo = await plainJpeg(80, 80, 33);
      await admin.request('PUT', `/api/people/${id}/photo`, {
        body: { photo: photo.toString('base64') },
        csrf: true,
      });
      await until('the device holds it', () => sim.persons()[id] !== undefined);
      const person = (await server.ctx.models.Person.findByPk(id))!;
      expect(sim.persons()[id]).toMatchObject({
        version: person.version,
        photoSha256: person.photoSha256,
      });
    } finally {
      await sim.stop();
    }
  });
});

describe.each(DIALECTS)('the sync job after a change through the API on %s', (dialect) => {
  // An interval far longer than the test: only the change itself can start the push.
  const started = jobServer(dialect, 3600);

  test('a person created and given a photo is pushed at once, not at the next interval', async () => {
    const server = started();
    const admin = await signedIn(server, 'admin');
    const spaceId = await createSpace(admin, 'Gate');
    const device = await registerSim(server, admin, spaceId);
    try {
      await beat(device);
      const created = await admin.post('/api/people', {
        name: 'Kicked Person',
        idNumber: `KICK-${dialect}-1`,
        spaceIds: [spaceId],
      });
      const id = personOut.parse(created.body).id;
      const photo = await plainJpeg(80, 80, 41);
      const withPhoto = await admin.request('PUT', `/api/people/${id}/photo`, {
        body: { photo: photo.toString('base64') },
        csrf: true,
      });
      expect(withPhoto.status).toBe(200);
      const person = personOut.parse((await admin.get(`/api/people/${id}`)).body);
      expect(person.photoSha256).not.toBeNull();
      await until(
        'the device holds it',
        () => device.sim.person(id)?.version === person.version,
        15_000,
      );
      expect(device.sim.person(id)?.photoSha256).toBe(person.photoSha256);
    } finally {
      await device.sim.stop();
    }
  });
});
