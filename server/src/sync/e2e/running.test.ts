import { personSyncOut, syncTaskList } from '@svc/shared';
import { createDeviceClient, type DeviceClient } from '../../devices/service.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { readDueTasks } from '../delivery/store/due.js';
import type { ReadCursor } from '../tasks/rows.js';
import { planSync } from '../planning/full-plan.js';
import { InFlight } from '../delivery/inflight.js';
import { addPerson } from '../../test/sync-setup.js';
import {
  expectConverged,
  fleetSitePerTest,
  holdings,
  onlyCounts,
  syncCounts,
} from '../../test/sync-fleet.js';
import { SyncWorker } from '../worker/worker.js';
import { until } from '../../test/wait.js';

const PEOPLE = 6;

/**
 * Tasks are not marked while they are pushed (the device is held instead: device-leases.ts). The API
 * still shows the pushes in flight as `running`, and a task changed while its push is in flight
 * is pushed again only after that push is written, never beside it.
 */
describe.each(DIALECTS)('pushes in flight on %s', (dialect) => {
  const startSite = fleetSitePerTest(dialect);

  test('shown running while pushed; a task changed meanwhile is pushed again once that push is written', async () => {
    const { server, fleet } = await startSite({ people: PEOPLE, devices: 1 });
    const device = fleet.devices[0]!;
    const plain = createDeviceClient();
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const waiting = new Set<string>();
    const pushing = new Map<string, number>();
    let overlapped = false;
    const versions = new Map<string, number[]>();
    const client: DeviceClient = {
      ...plain,
      putPerson: async (target, body) => {
        const now = (pushing.get(body.id) ?? 0) + 1;
        pushing.set(body.id, now);
        if (now > 1) overlapped = true;
        versions.set(body.id, [...(versions.get(body.id) ?? []), body.version]);
        try {
          waiting.add(body.id);
          await gate;
          return await plain.putPerson(target, body);
        } finally {
          waiting.delete(body.id);
          pushing.set(body.id, pushing.get(body.id)! - 1);
        }
      },
    };
    const worker = new SyncWorker(server.ctx, { client, perDevice: 4 });
    const run = worker.runOnce();
    await until('four pushes wait at the gate', () => waiting.size === 4);

    const admin = await signedIn(server, 'admin');
    const running = syncTaskList.parse(
      (await admin.get(`/api/sync/tasks?state=running&deviceId=${device.id}`)).body,
    );
    // Read to push (the stream reads ahead of its pushes, as a claim did): all six, four of
    // them at the device. The database holds them pending.
    expect(running.total).toBe(PEOPLE);
    expect(running.items.every((t) => t.state === 'running')).toBe(true);
    for (const id of waiting) expect(running.items.map((t) => t.personId)).toContain(id);
    expect(await server.ctx.models.SyncTask.count({ where: { state: 'pending' } })).toBe(PEOPLE);
    const pending = syncTaskList.parse(
      (await admin.get(`/api/sync/tasks?state=pending&deviceId=${device.id}`)).body,
    );
    expect(pending.total).toBe(0);
    expect(await syncCounts(admin, device.id)).toEqual(onlyCounts({ running: PEOPLE }));
    const [changed] = [...waiting];
    const shown = personSyncOut.parse((await admin.get(`/api/people/${changed}/sync`)).body);
    expect(shown.items.map((i) => i.state)).toEqual(['running']);
    // A retry of a task being pushed is refused.
    const task = running.items.find((t) => t.personId === changed)!;
    expect((await admin.post(`/api/sync/tasks/${task.id}/retry`)).status).toBe(409);

    // The person changes while their push waits: planned at once, due at once.
    const before = fleet.expected.get(changed!)!.version;
    const patched = await admin.request('PATCH', `/api/people/${changed}`, {
      body: { name: 'Renamed in flight' },
      csrf: true,
    });
    expect(patched.status).toBe(200);
    await planSync(server.ctx);
    fleet.expected.set(changed!, {
      ...fleet.expected.get(changed!)!,
      version: (await server.ctx.models.Person.findByPk(changed))!.version,
    });
    expect(fleet.expected.get(changed!)!.version).toBeGreaterThan(before);

    open();
    await run;
    await worker.runUntilIdle();
    await worker.stop();
    expect(overlapped).toBe(false);
    // The old version first (in flight when it changed), then the new one.
    expect(versions.get(changed!)).toEqual([before, fleet.expected.get(changed!)!.version]);
    expect(holdings(device.sim).get(changed!)?.version).toBe(fleet.expected.get(changed!)!.version);
    await expectConverged(server, fleet);
    // Nothing in flight any more: the API shows every task as the database holds it.
    expect(await syncCounts(admin, device.id)).toEqual({
      pending: 0,
      running: 0,
      succeeded: PEOPLE,
      failed: 0,
      waitingPhoto: 0,
    });
  }, 60_000);

  test("a device's reads go forward from where the last ended, and skip tasks in flight", async () => {
    const { server, fleet } = await startSite({ people: PEOPLE, devices: 1 });
    const device = fleet.devices[0]!;
    await planSync(server.ctx);
    const inFlight = new InFlight();
    const cursor: ReadCursor = {};
    const read = (from: ReadCursor) =>
      readDueTasks(server.ctx, device.id, 10, server.ctx.clock.now(), {
        cursor: from,
        skip: (id) => inFlight.has(id),
      });
    const first = await read(cursor);
    expect(first).toHaveLength(PEOPLE);
    inFlight.add(first);
    // Still pending in the database, but behind the read position: not read again (the
    // position alone does it; from the start, only the skip does).
    const unskipped = (from: ReadCursor) =>
      readDueTasks(server.ctx, device.id, 10, server.ctx.clock.now(), { cursor: from });
    expect(await unskipped({ ...cursor })).toEqual([]);
    expect(await unskipped({})).toHaveLength(PEOPLE);
    expect(await read(cursor)).toEqual([]);

    // One of them changes while in flight: due again at once, after the position — skipped,
    // from the position and from the start (a new stream) alike.
    const changed = first[0]!.personId;
    const admin = await signedIn(server, 'admin');
    const patched = await admin.request('PATCH', `/api/people/${changed}`, {
      body: { name: 'Renamed while read' },
      csrf: true,
    });
    expect(patched.status).toBe(200);
    await planSync(server.ctx);
    expect(await read(cursor)).toEqual([]);
    expect(await read({})).toEqual([]);
    // A person added meanwhile is read from the position.
    const row = (await server.ctx.models.Device.findByPk(device.id))!;
    const added = await addPerson(server, row.organizationId, [row.spaceId!]);
    await planSync(server.ctx);
    const next = await read(cursor);
    expect(next.map((t) => t.personId)).toEqual([added.id]);
    inFlight.add(next);

    // Its push is written (settled): the changed task is read again, at its new version.
    inFlight.settle(first[0]!.id);
    const again = await read({});
    expect(again.map((t) => [t.personId, t.personVersion])).toEqual([
      [changed, (await server.ctx.models.Person.findByPk(changed))!.version],
    ]);
  });
});
