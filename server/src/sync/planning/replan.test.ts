import { ManualClock } from '../../platform/clock.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { changesSince } from './full-plan.js';
import { desiredFingerprint } from './fingerprint.js';
import {
  addPerson,
  beat,
  createSpace,
  held,
  organizationOf,
  registerSim,
  type SimDevice,
} from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';

/**
 * Moving a space or a device changes who belongs on the device without touching any person:
 * the planner's fingerprint must notice. The clock stands still here, so a change within the
 * same millisecond as the last one (which an `updated_at` maximum cannot see) is what is tested.
 */
describe.each(DIALECTS)('re-planning after a move (%s)', (dialect) => {
  let server: TestServer;
  let worker: SyncWorker;
  let admin: TestClient;
  let d: SimDevice;
  const others: SimDevice[] = [];
  let person: Awaited<ReturnType<typeof addPerson>>;
  const space = { r1: '', c: '', r2: '' };

  const patch = async (path: string, body: unknown) =>
    expect((await admin.request('PATCH', path, { body, csrf: true })).status).toBe(200);
  const fingerprint = () => desiredFingerprint(server.ctx, server.ctx.clock.now());

  afterAll(async () => {
    await d?.sim.stop();
    for (const o of others) await o.sim.stop();
  });

  const suite = suiteServer(dialect, { clock: new ManualClock() });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    worker = new SyncWorker(server.ctx, { fullPlanEveryMs: 24 * 3_600_000 });
    space.r1 = await createSpace(admin, 'Campus one');
    space.c = await createSpace(admin, 'Hall', space.r1);
    space.r2 = await createSpace(admin, 'Campus two');
    d = await registerSim(server, admin, space.c);
    // Access to the campus reaches the hall below it.
    person = await addPerson(server, await organizationOf(server, space.r1), [space.r1]);
    await beat(d);
    await worker.runUntilIdle();
    expect(held(d)).toEqual({
      [person.id]: { version: person.version, photoSha256: person.photoSha256 },
    });
  });

  test('a space moved under a parent the person has no access to: removed; moved back: pushed again', async () => {
    const before = await fingerprint();
    await patch(`/api/spaces/${space.c}`, { parentId: space.r2 });
    expect(await fingerprint()).not.toBe(before);
    await worker.runUntilIdle();
    expect(held(d)).toEqual({});

    await patch(`/api/spaces/${space.c}`, { parentId: space.r1 });
    await worker.runUntilIdle();
    expect(Object.keys(held(d))).toEqual([person.id]);
  });

  test('a device moved to a space the person has no access to: removed; moved back: pushed again', async () => {
    const before = await fingerprint();
    await patch(`/api/devices/${d.id}`, { spaceId: space.r2 });
    expect(await fingerprint()).not.toBe(before);
    await worker.runUntilIdle();
    expect(held(d)).toEqual({});
    const task = await server.ctx.models.SyncTask.findOne({
      where: { personId: person.id, deviceId: d.id },
    });
    expect([task?.action, task?.state]).toEqual(['delete', 'succeeded']);

    await patch(`/api/devices/${d.id}`, { spaceId: space.c });
    await worker.runUntilIdle();
    expect(Object.keys(held(d))).toEqual([person.id]);
  });

  test('a device disabled: its people become deletes, held like any offline device; enabled again: put back', async () => {
    // PROTOCOL §5: a disabled device counts as offline, so it is not contacted while disabled.
    const task = () =>
      server.ctx.models.SyncTask.findOne({ where: { personId: person.id, deviceId: d.id } });
    await patch(`/api/devices/${d.id}`, { enabled: false });
    await worker.runUntilIdle();
    let t = await task();
    expect([t?.action, t?.state, t?.attempts]).toEqual(['delete', 'pending', 0]);
    expect(Object.keys(held(d))).toEqual([person.id]);
    await patch(`/api/devices/${d.id}`, { enabled: true });
    await worker.runUntilIdle();
    t = await task();
    expect([t?.action, t?.state]).toEqual(['put', 'succeeded']);
    expect(Object.keys(held(d))).toEqual([person.id]);
  });

  test('a device registered is planned on its own; a space moved cannot be planned in part', async () => {
    const since = server.ctx.clock.now();
    const before = await fingerprint();
    const added = await registerSim(server, admin, space.c);
    others.push(added);
    const after = await fingerprint();
    expect(await changesSince(server.ctx, before, after, since)).toEqual({
      people: [],
      devices: [added.id],
    });
    await patch(`/api/spaces/${space.c}`, { parentId: space.r2 });
    expect(await changesSince(server.ctx, after, await fingerprint(), since)).toBeUndefined();
    await patch(`/api/spaces/${space.c}`, { parentId: space.r1 });

    await beat(d, added);
    await worker.runUntilIdle();
    for (const device of [d, added]) expect(Object.keys(held(device))).toEqual([person.id]);
  });
});
