import {
  personOut,
  deviceSyncOut,
  devicesSyncOut,
  peopleSyncOut,
  personSyncOut,
  syncTaskList,
} from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { plainJpeg } from '../../test/images.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { SyncWorker } from '../worker/worker.js';
import { beat, createSpace, registerSim, type SimDevice } from '../../test/sync-setup.js';

/** What the site's /sync page and people list read: lane filter, names, health by person. */
describe.each(DIALECTS)('synchronization overview on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let operator: TestClient;
  let worker: SyncWorker;
  let d1: SimDevice, d2: SimDevice;
  let serial = 0;

  const addPerson = async (spaceIds: string[], photo: boolean) => {
    const reply = await admin.post('/api/people', {
      name: `Overview ${dialect} ${++serial}`,
      idNumber: `OV-${dialect}-${serial}`,
      spaceIds,
    });
    expect(reply.status).toBe(201);
    const person = personOut.parse(reply.body);
    if (photo) {
      const image = await plainJpeg(64, 64, serial * 20);
      const put = await admin.request('PUT', `/api/people/${person.id}/photo`, {
        body: { photo: image.toString('base64') },
        csrf: true,
      });
      expect(put.status).toBe(200);
    }
    return person;
  };

  afterAll(async () => {
    await d1.sim.stop();
    await d2.sim.stop();
  });

  const suite = suiteServer(dialect, { clock: new ManualClock() });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    operator = await signedIn(server, 'operator');
    worker = new SyncWorker(server.ctx);
    const a = await createSpace(admin, 'Overview A');
    const b = await createSpace(admin, 'Overview B');
    d1 = await registerSim(server, admin, a);
    d2 = await registerSim(server, admin, b);
  });

  test('health by person, task names, lane filter, next attempt on the person page', async () => {
    const a = (await server.ctx.models.Device.findByPk(d1.id))!.spaceId!;
    const b = (await server.ctx.models.Device.findByPk(d2.id))!.spaceId!;
    const both = await addPerson([a, b], true);
    // No photo: the worker fails the task at once, without trying the device.
    const bare = await addPerson([a], false);
    const nowhere = await addPerson([], true);
    await beat(d1, d2);
    await worker.runUntilIdle();

    const ids = [both.id, bare.id, nowhere.id].join(',');
    const health = peopleSyncOut.parse((await operator.get(`/api/sync/people?ids=${ids}`)).body);
    const byId = new Map(health.items.map((i) => [i.personId, i.counts]));
    const none = { pending: 0, running: 0, succeeded: 0, failed: 0, waitingPhoto: 0 };
    expect(byId.get(both.id)).toEqual({ ...none, succeeded: 2 });
    // No photo is no failure: counted as waiting for one (issue 30, item 9).
    expect(byId.get(bare.id)).toEqual({ ...none, waitingPhoto: 1 });
    // No device concerns them: left out.
    expect(byId.has(nowhere.id)).toBe(false);

    // The devices list: each device's tasks by state; an unknown id is left out.
    const devices = devicesSyncOut.parse(
      (await operator.get(`/api/sync/devices?ids=${d1.id},${d2.id},${crypto.randomUUID()}`)).body,
    );
    expect(new Map(devices.items.map((i) => [i.deviceId, i.counts]))).toEqual(
      new Map([
        [d1.id, { ...none, succeeded: 1, waitingPhoto: 1 }],
        [d2.id, { ...none, succeeded: 1 }],
      ]),
    );
    // The device's own page counts alike.
    expect(
      deviceSyncOut.parse((await operator.get(`/api/sync/devices/${d1.id}`)).body).counts,
    ).toEqual({ ...none, succeeded: 1, waitingPhoto: 1 });

    const tasks = syncTaskList.parse((await operator.get(`/api/sync/tasks?pageSize=200`)).body);
    expect(tasks.total).toBe(3);
    const named = new Map(tasks.items.map((t) => [t.personId, t.personName]));
    expect(named.get(both.id)).toBe(both.name);
    // A plan of one person at a time goes to the priority lane; none is bulk.
    const priority = syncTaskList.parse(
      (await operator.get('/api/sync/tasks?lane=priority&pageSize=200')).body,
    );
    expect(priority.total).toBe(3);
    const bulk = syncTaskList.parse((await operator.get('/api/sync/tasks?lane=bulk')).body);
    expect(bulk.total).toBe(0);
    const failedPriority = syncTaskList.parse(
      (await operator.get(`/api/sync/tasks?lane=priority&state=failed&deviceId=${d1.id}`)).body,
    );
    expect(failedPriority.items.map((t) => t.personId)).toEqual([bare.id]);
    expect(failedPriority.items[0]!.error?.code).toBe('no_photo');

    const perPerson = personSyncOut.parse((await operator.get(`/api/people/${bare.id}/sync`)).body);
    expect(perPerson.items).toHaveLength(1);
    expect(perPerson.items[0]!.id).toBe(failedPriority.items[0]!.id);
    expect(Number.isNaN(Date.parse(perPerson.items[0]!.nextAttemptAt))).toBe(false);

    // Deleted: the delete task remains, without a name.
    expect((await admin.request('DELETE', `/api/people/${both.id}`, { csrf: true })).status).toBe(
      204,
    );
    await worker.runUntilIdle();
    const erased = syncTaskList.parse(
      (await operator.get(`/api/sync/tasks?personId=${both.id}`)).body,
    );
    expect(erased.items.map((t) => [t.action, t.state, t.personName])).toEqual([
      ['delete', 'succeeded', null],
      ['delete', 'succeeded', null],
    ]);
    expect(d1.sim.person(both.id)).toBeUndefined();
  });

  test('bad input: a clear 400 and nothing read', async () => {
    for (const ids of ['', 'not-a-uuid', Array(101).fill(crypto.randomUUID()).join(',')]) {
      for (const path of ['/api/sync/people', '/api/sync/devices']) {
        const reply = await operator.get(`${path}?ids=${ids}`);
        expect(reply.status).toBe(400);
        expect((reply.body as { error: { code: string } }).error.code).toBe('invalid_input');
      }
    }
    expect((await operator.get('/api/sync/tasks?lane=fast')).status).toBe(400);
  });
});
