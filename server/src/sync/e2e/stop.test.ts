import { createDeviceClient } from '../../devices/client.js';
import { DIALECTS } from '../../test/dialects.js';
import type { TestServer } from '../../test/harness.js';
import { lastReconciliation, RECONCILIATION_STOPPED } from '../reconciliation/read-back.js';
import { reconcileAll } from '../reconciliation/runs.js';
import {
  expectConverged,
  gatedClient,
  holdings,
  startFleetSite,
  statesOf,
  type Fleet,
  type FleetSite,
} from '../../test/sync-fleet.js';
import { SyncWorker } from '../worker/worker.js';
import { until } from '../../test/wait.js';

const PEOPLE = 300;

describe.each(DIALECTS)('stopping the sync worker on %s', (dialect) => {
  let site: FleetSite | undefined;
  let server: TestServer;
  let fleet: Fleet;

  beforeEach(async () => {
    site = await startFleetSite(dialect, { people: PEOPLE, devices: 2 });
    ({ server, fleet } = site);
  });
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  const states = async () =>
    statesOf(await server.ctx.models.SyncTask.findAll({ attributes: ['state'], raw: true }));

  test('stop() during a backfill ends it without pushing the rest: nothing left running, the rest pushed by the next worker', async () => {
    // Slow devices: the backfill would take seconds, the stop must not wait for it.
    for (const d of fleet.devices) await d.sim.setFaults({ delayMs: 20 });
    const worker = new SyncWorker(server.ctx);
    worker.start();
    await until('the backfill is under way', () =>
      fleet.devices.every((d) => d.sim.personCount() >= 10),
    );
    await worker.stop();

    const after = await states();
    expect(after.running ?? 0).toBe(0);
    expect(after.failed ?? 0).toBe(0);
    // Work remained: the stop did not wait for the whole backfill.
    expect(after.pending ?? 0).toBeGreaterThan(PEOPLE);
    // What was recorded as succeeded is on the device (in-flight pushes were written).
    const succeeded = await server.ctx.models.SyncTask.findAll({
      where: { state: 'succeeded' },
      raw: true,
    });
    const held = new Map(fleet.devices.map((d) => [d.id, holdings(d.sim)]));
    for (const t of succeeded) {
      expect(held.get(t.deviceId)!.get(t.personId)?.version).toBe(t.resultVersion);
    }
    // Claimed but untried tasks are due at once, not after a pause: nothing is wrong.
    const pending = await server.ctx.models.SyncTask.findAll({
      where: { state: 'pending' },
      raw: true,
    });
    const now = server.ctx.clock.now().getTime();
    expect(pending.filter((t) => new Date(t.nextAttemptAt).getTime() > now)).toEqual([]);

    for (const d of fleet.devices) await d.sim.setFaults({});
    const next = new SyncWorker(server.ctx);
    await next.runUntilIdle();
    await next.stop();
    await expectConverged(server, fleet!);
  }, 120_000);

  test('a reconciliation stops at its next read when asked to, and says so', async () => {
    const worker = new SyncWorker(server.ctx);
    await worker.runUntilIdle();
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 2 * PEOPLE });

    const stopping = new AbortController();
    const client = gatedClient((n) => n === 25 && stopping.abort()).client;
    await reconcileAll(server.ctx, {
      client,
      stopping: stopping.signal,
    });
    // One device was stopped part-way; the one after it was not started.
    const summaries = await Promise.all(
      fleet.devices.map((d) => lastReconciliation(server.ctx, d.id)),
    );
    const stopped = summaries.filter((r) => r !== null);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]!.error).toBe(RECONCILIATION_STOPPED);
    expect(stopped[0]!.checked).toBeGreaterThanOrEqual(24);
    expect(stopped[0]!.checked).toBeLessThan(PEOPLE);

    // Not stopped: every person of every device is read back, page after page (the last
    // page a short one).
    await reconcileAll(server.ctx, {
      client: createDeviceClient(),
      pageSize: 7,
    });
    for (const d of fleet.devices) {
      const summary = await lastReconciliation(server.ctx, d.id);
      expect(summary).toMatchObject({ checked: PEOPLE, requeued: 0, errors: 0 });
      expect(summary?.error).toBeUndefined();
    }
  }, 120_000);

  test("the worker's stop() ends a periodic reconciliation in progress", async () => {
    let stopped: Promise<void> | undefined;
    const { client } = gatedClient((n) => {
      if (n === 25) stopped = worker.stop();
    });
    const worker = new SyncWorker(server.ctx, { client, reconcileEveryMs: 1 });
    worker.start();
    await until('the stop was asked for', () => stopped !== undefined);
    await stopped;
    const summaries = await Promise.all(
      fleet.devices.map((d) => lastReconciliation(server.ctx, d.id)),
    );
    expect(summaries.filter((r) => r !== null)).toEqual([
      expect.objectContaining({ error: RECONCILIATION_STOPPED }),
    ]);
  }, 120_000);
});
