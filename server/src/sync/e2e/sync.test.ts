import {
  personOut,
  deviceSyncOut,
  personSyncOut,
  reconciliationStarted,
  syncTaskList,
  syncTaskOut,
} from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { plainJpeg } from '../../test/images.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { readDueTasks } from '../delivery/store/due.js';
import { MAX_ATTEMPTS } from '../knobs.js';
import { SyncWorker } from '../worker/worker.js';
import {
  createSpace as createSpaceIn,
  registerSim,
  type SimDevice,
} from '../../test/sync-setup.js';
import { waitFor } from '../../test/wait.js';

const TIMEOUT_S = 30;
let serial = 0;

describe.each(DIALECTS)('person synchronization on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let operator: TestClient;
  let worker: SyncWorker;
  const space: Record<'a' | 'a1' | 'b', string> = { a: '', a1: '', b: '' };
  const devices: SimDevice[] = [];
  const people: Record<string, string> = {};
  let d1: SimDevice, d2: SimDevice, d3: SimDevice;

  const createSpace = (name: string, parentId?: string) => createSpaceIn(admin, name, parentId);
  const addDevice = async (spaceId: string): Promise<SimDevice> => {
    const device = await registerSim(server, admin, spaceId);
    devices.push(device);
    return device;
  };
  const addPerson = async (
    label: string,
    spaceIds: string[],
    extra: Record<string, unknown> = {},
    photo = true,
  ) => {
    const reply = await admin.post('/api/people', {
      name: `Test Person ${label}`,
      idNumber: `ID-${dialect}-${++serial}`,
      spaceIds,
      ...extra,
    });
    expect(reply.status).toBe(201);
    const id = personOut.parse(reply.body).id;
    people[label] = id;
    if (photo) await setPhoto(id, serial % 200);
    return id;
  };
  const setPhoto = async (id: string, red: number, size = 96) => {
    const image = await plainJpeg(size, size, red);
    const reply = await admin.request('PUT', `/api/people/${id}/photo`, {
      body: { photo: image.toString('base64') },
      csrf: true,
    });
    expect(reply.status).toBe(200);
  };
  const beat = async (...which: SimDevice[]) => {
    for (const d of which) expect((await d.sim.heartbeatNow())?.status).toBe(200);
  };
  const offline = () => clock.advance((TIMEOUT_S + 1) * 1000);
  // The manual clock jumps past the session idle timeout: sign in again afterwards.
  const signInAgain = async () => {
    admin = await signedIn(server, 'admin');
    operator = await signedIn(server, 'operator');
  };
  /** What the device should hold: person id → version and photo, from the central record. */
  const expected = async (...labels: string[]) => {
    const out: Record<string, { version: number; photoSha256: string }> = {};
    for (const label of labels) {
      const p = (await server.ctx.models.Person.findByPk(people[label]))!;
      out[p.id] = { version: p.version, photoSha256: p.photoSha256! };
    }
    return out;
  };
  const holds = (d: SimDevice) =>
    Object.fromEntries(
      Object.entries(d.sim.persons()).map(([id, s]) => [
        id,
        { version: s.version, photoSha256: s.photoSha256 },
      ]),
    );
  const taskOf = async (label: string, d: SimDevice) =>
    (await server.ctx.models.SyncTask.findOne({
      where: { personId: people[label], deviceId: d.id },
    }))!;
  const patch = (path: string, body: unknown) => admin.request('PATCH', path, { body, csrf: true });

  const clock = new ManualClock();
  afterAll(async () => {
    for (const d of devices) await d.sim.stop();
  });

  const suite = suiteServer(dialect, { clock, env: { HEARTBEAT_TIMEOUT: String(TIMEOUT_S) } });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    operator = await signedIn(server, 'operator');
    worker = new SyncWorker(server.ctx);
    space.a = await createSpace('Building A');
    space.a1 = await createSpace('Floor A1', space.a);
    space.b = await createSpace('Building B');
    d1 = await addDevice(space.a);
    d2 = await addDevice(space.a1);
    d3 = await addDevice(space.b);
  });

  test('three devices in two spaces end with exactly the right people and equal photo hashes', async () => {
    const now = clock.now().getTime();
    await addPerson('a', [space.a]);
    await addPerson('a1', [space.a1]);
    await addPerson('b', [space.b]);
    await addPerson('a1b', [space.a1, space.b]);
    await addPerson('none', []);
    await addPerson('disabled', [space.a], { enabled: false });
    await addPerson('expired', [space.a], { validUntil: new Date(now - 60_000).toISOString() });
    await addPerson('future', [space.b], { validFrom: new Date(now + 3_600_000).toISOString() });
    await beat(d1, d2, d3);

    await worker.runUntilIdle();

    expect(holds(d1)).toEqual(await expected('a'));
    expect(holds(d2)).toEqual(await expected('a', 'a1', 'a1b'));
    expect(holds(d3)).toEqual(await expected('b', 'a1b'));
    const tasks = syncTaskList.parse((await operator.get('/api/sync/tasks?pageSize=200')).body);
    expect(tasks.total).toBe(6);
    expect(tasks.items.every((t) => t.state === 'succeeded' && t.action === 'put')).toBe(true);
    expect(tasks.items.every((t) => t.lane === 'priority' && t.error === null)).toBe(true);

    const perPerson = personSyncOut.parse(
      (await operator.get(`/api/people/${people.a1b}/sync`)).body,
    );
    expect(perPerson.items.map((i) => i.sn).sort()).toEqual([d2.sn, d3.sn].sort());
    const a1b = (await expected('a1b'))[people.a1b!]!;
    for (const item of perPerson.items) {
      expect(item).toMatchObject({ state: 'succeeded', version: a1b.version });
      // No failed attempt: the devices were healthy.
      expect(item.attempts).toBe(0);
      expect(item.resultPhotoSha256).toBe(a1b.photoSha256);
    }
    const filtered = syncTaskList.parse(
      (await operator.get(`/api/sync/tasks?deviceId=${d2.id}&state=succeeded`)).body,
    );
    expect(filtered.total).toBe(3);
    // By state alone (read device by device): every device's tasks, none of another state.
    const succeeded = syncTaskList.parse(
      (await operator.get('/api/sync/tasks?state=succeeded&pageSize=200')).body,
    );
    expect(succeeded.items.map((t) => t.id).sort()).toEqual(tasks.items.map((t) => t.id).sort());
    const none = syncTaskList.parse((await operator.get('/api/sync/tasks?state=failed')).body);
    expect(none.total).toBe(0);
    // A second run with nothing changed pushes nothing.
    expect((await worker.runOnce()).pushed).toBe(0);
  });

  test('an offline device holds its tasks without burning attempts; back online it converges', async () => {
    offline();
    // The validity window of "future" opens while everything is offline.
    clock.advance(3_600_000);
    await signInAgain();
    await beat(d1, d2);
    await addPerson('everywhere', [space.a, space.b]);

    await worker.runUntilIdle();

    expect(holds(d1)).toEqual(await expected('a', 'everywhere'));
    expect(holds(d2)).toEqual(await expected('a', 'a1', 'a1b', 'everywhere'));
    expect(holds(d3)).toEqual(await expected('b', 'a1b'));
    for (const label of ['everywhere', 'future']) {
      const task = await taskOf(label, d3);
      expect([label, task.state, task.attempts]).toEqual([label, 'pending', 0]);
    }
    const summary = deviceSyncOut.parse((await operator.get(`/api/sync/devices/${d3.id}`)).body);
    expect(summary).toMatchObject({ online: false, counts: { pending: 2, failed: 0 }, held: 2 });

    await beat(d3);
    await worker.runUntilIdle();
    expect(holds(d3)).toEqual(await expected('b', 'a1b', 'everywhere', 'future'));
  });

  test('access removed and person deleted: gone from the devices', async () => {
    await beat(d1, d2, d3);
    expect((await patch(`/api/people/${people.a1b}`, { spaceIds: [space.a1] })).status).toBe(200);
    expect((await admin.request('DELETE', `/api/people/${people.a}`, { csrf: true })).status).toBe(
      204,
    );
    expect((await patch(`/api/people/${people.b}`, { enabled: false })).status).toBe(200);

    await worker.runUntilIdle();

    expect(holds(d1)).toEqual(await expected('everywhere'));
    expect(holds(d2)).toEqual(await expected('a1', 'a1b', 'everywhere'));
    expect(holds(d3)).toEqual(await expected('everywhere', 'future'));
    const removed = await server.ctx.models.SyncTask.findAll({ where: { personId: people.a } });
    expect(removed.map((t) => [t.action, t.state, t.resultVersion])).toEqual([
      ['delete', 'succeeded', null],
      ['delete', 'succeeded', null],
    ]);
  });

  test('a device answering 500 is retried with backoff, then failed with a readable reason; retry brings it back', async () => {
    await beat(d1, d2, d3);
    await d1.sim.setFaults({ status500: true });
    await addPerson('x', [space.a]);
    await addPerson('y', [space.a]);
    await worker.runUntilIdle();
    expect(Object.keys(holds(d2))).toEqual(expect.arrayContaining([people.x, people.y]));
    const first = await taskOf('x', d1);
    expect([first.state, first.attempts, first.errorCode]).toEqual([
      'pending',
      1,
      'device_http_status',
    ]);
    expect(first.nextAttemptAt.getTime()).toBeGreaterThan(clock.now().getTime());
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      clock.advance(5 * 60_000 + 1000);
      await beat(d1, d2, d3);
      await worker.runUntilIdle();
    }
    await signInAgain();
    const failed = await taskOf('x', d1);
    expect([failed.state, failed.attempts]).toEqual(['failed', MAX_ATTEMPTS]);
    expect(failed.errorMessage).toMatch(/^Gave up after 8 attempts: device .* answered HTTP 500/);

    await d1.sim.setFaults({});
    expect((await operator.post(`/api/sync/tasks/${failed.id}/retry`)).status).toBe(403);
    const retried = await admin.post(`/api/sync/tasks/${failed.id}/retry`);
    expect(retried.status).toBe(200);
    expect(syncTaskOut.parse(retried.body)).toMatchObject({ state: 'pending', attempts: 0 });
    await worker.runUntilIdle();
    expect(Object.keys(holds(d1))).toContain(people.x);
    expect(Object.keys(holds(d1))).not.toContain(people.y);
    expect((await taskOf('y', d1)).state).toBe('failed');

    const all = await admin.post(`/api/sync/devices/${d1.id}/retry-failed`);
    expect(all.body).toEqual({ retried: 1 });
    await worker.runUntilIdle();
    expect(holds(d1)).toEqual(await expected('everywhere', 'x', 'y'));
  });

  // Checked: the five people d2 holds and the finished removal of the deleted person.
  test('a device that silently loses a person: reconciliation re-queues it and it is pushed again', async () => {
    await beat(d1, d2, d3);
    expect(await d2.sim.removePersonSilently(people.a1!)).toBe(true);
    const reply = await admin.post(`/api/sync/devices/${d2.id}/reconcile`);
    expect(reply.status).toBe(202);
    const { startedAt } = reconciliationStarted.parse(reply.body);
    const ended = await waitFor(
      async () => deviceSyncOut.parse((await operator.get(`/api/sync/devices/${d2.id}`)).body),
      (s) => s.reconcilingSince === null,
    );
    expect(ended.lastReconciliation).toMatchObject({ at: startedAt, requeued: 1, errors: 0 });
    const task = await taskOf('a1', d2);
    expect([task.state, task.lane, task.errorCode, task.resultVersion]).toEqual([
      'pending',
      'priority',
      'drift',
      null,
    ]);
    await worker.runUntilIdle();
    expect(holds(d2)).toEqual(await expected('a1', 'a1b', 'everywhere', 'x', 'y'));
    const summary = deviceSyncOut.parse((await operator.get(`/api/sync/devices/${d2.id}`)).body);
    expect(summary.lastReconciliation).toMatchObject({ requeued: 1, checked: 6 });
    expect(summary.counts.pending).toBe(0);
  });

  test('no photo and a full device fail clearly without being sent; a photo over the device limit is sent fitted', async () => {
    await beat(d1, d2, d3);
    await addPerson('nophoto', [space.b], {}, false);
    await worker.runUntilIdle();
    let task = await taskOf('nophoto', d3);
    expect([task.state, task.attempts, task.errorCode]).toEqual(['failed', 0, 'no_photo']);
    await setPhoto(people.nophoto!, 17);
    await worker.runUntilIdle();
    expect(Object.keys(holds(d3))).toContain(people.nophoto);

    expect((await patch(`/api/devices/${d3.id}`, { maxPhotoPixels: 128 })).status).toBe(200);
    await setPhoto(people.nophoto!, 90, 300);
    await worker.runUntilIdle();
    task = await taskOf('nophoto', d3);
    // The device got a 128 px variant (photos/variants/) and acknowledged its hash.
    const person = (await server.ctx.models.Person.findByPk(people.nophoto))!;
    const sent = d3.sim.persons()[people.nophoto!]!.photoSha256;
    expect([task.state, task.photoSha256, task.resultPhotoSha256]).toEqual([
      'succeeded',
      person.photoSha256,
      sent,
    ]);
    expect(sent).not.toBe(person.photoSha256);
    expect((await server.ctx.models.File.findByPk(sent))?.width).toBe(128);
    expect((await patch(`/api/devices/${d3.id}`, { maxPhotoPixels: null })).status).toBe(200);
    await worker.runUntilIdle();
    expect(d3.sim.persons()[people.nophoto!]!.photoSha256).toBe(person.photoSha256);

    const held = Object.keys(holds(d3)).length;
    expect((await patch(`/api/devices/${d3.id}`, { capacity: held })).status).toBe(200);
    await addPerson('overflow', [space.b]);
    await worker.runUntilIdle();
    task = await taskOf('overflow', d3);
    expect([task.state, task.errorCode]).toEqual(['failed', 'capacity']);
    expect(Object.keys(holds(d3))).toHaveLength(held);
  });

  test('one process pushes a device at a time, and a dead one lets go of it after its lease', async () => {
    await beat(d1, d2, d3);
    for (let i = 0; i < 6; i++) await addPerson(`claim${i}`, [space.a1]);
    const { planSync } = await import('../planning/full-plan.js');
    await planSync(server.ctx);
    const { DeviceLeases, newHolder } = await import('../delivery/device-leases.js');
    // Two processes' runs: the second does not get the device the first holds.
    const first = new DeviceLeases(server.ctx, newHolder());
    const second = new DeviceLeases(server.ctx, newHolder());
    expect(await first.acquire(d2.id)).toBe(true);
    expect(await second.acquire(d2.id)).toBe(false);
    expect(await first.acquire(d2.id)).toBe(true);
    // The first reads the device's tasks, then "dies" (nothing written, no renewal).
    const read = await readDueTasks(server.ctx, d2.id, 10, clock.now());
    expect(read).toHaveLength(6);
    expect(await server.ctx.models.SyncTask.count({ where: { state: 'running' } })).toBe(0);
    await worker.runOnce();
    expect(Object.keys(holds(d2))).not.toContain(people.claim0);
    // After its lease another process takes the device and pushes what was read, once.
    clock.advance(3 * 60_000);
    await beat(d1, d2, d3);
    await worker.runUntilIdle();
    for (let i = 0; i < 6; i++) expect(Object.keys(holds(d2))).toContain(people[`claim${i}`]);
    expect(await second.acquire(d2.id)).toBe(true);
    expect(await first.acquire(d2.id)).toBe(false);
    await Promise.all([first.close(), second.close()]);
    expect(await first.acquire(d2.id)).toBe(true);
    await first.close();
  });
});
