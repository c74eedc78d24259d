import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { RECONCILIATION_STOPPED } from './read-back.js';
import { periodicDue } from '../tasks/periodic-due.js';
import { reconcileAll } from './runs.js';
import { planSync } from '../planning/full-plan.js';
import { deviceSyncOut, reconciliationStarted } from '@svc/shared';
import { gatedClient, startFleetSite, type Fleet, type FleetSite } from '../../test/sync-fleet.js';
import { SyncWorker } from '../worker/worker.js';
import { until, waitFor } from '../../test/wait.js';

const PEOPLE = 120;

describe.each(DIALECTS)('reconciliations on request on %s', (dialect) => {
  let site: FleetSite | undefined;
  let server: TestServer;
  let fleet: Fleet;
  let admin: TestClient;
  let gated: ReturnType<typeof gatedClient>;
  let worker: SyncWorker;

  beforeEach(async () => {
    site = await startFleetSite(dialect, { people: PEOPLE, devices: 2 });
    ({ server, fleet } = site);
    admin = await signedIn(server, 'admin');
    // The routes use the worker's client: the gated one. Not started: no periodic pass.
    gated = gatedClient();
    worker = new SyncWorker(server.ctx, { client: gated.client });
    server.ctx.sync.worker = worker;
    await worker.runUntilIdle();
  });
  afterEach(async () => {
    gated.open();
    await server.ctx.sync.reconciliations.stop();
    await worker.stop();
    await site?.close();
    site = undefined;
  });

  const deviceSync = async (id: string) =>
    deviceSyncOut.parse((await admin.get(`/api/sync/devices/${id}`)).body);
  const ask = async (id: string) => {
    const reply = await admin.post(`/api/sync/devices/${id}/reconcile`);
    expect(reply.status).toBe(202);
    return reconciliationStarted.parse(reply.body);
  };
  const audited = () => server.ctx.models.Audit.count({ where: { action: 'sync.reconcile' } });

  test('answers 202 at once, shows it in progress, joins a second request, then stores the result and audits it', async () => {
    const [d0] = fleet.devices;
    gated.shut();
    const started = await ask(d0!.id);
    expect(started).toMatchObject({ deviceId: d0!.id, alreadyRunning: false });
    // Held at the gate: the answer did not wait for the read-back.
    await until('the first read-back', () => (gated.reads.get(d0!.sn) ?? 0) > 0);
    let sync = await deviceSync(d0!.id);
    expect(sync.reconcilingSince).toBe(started.startedAt);
    expect(sync.lastReconciliation).toBeNull();

    const again = await ask(d0!.id);
    expect(again).toEqual({ ...started, alreadyRunning: true });

    gated.open();
    sync = await waitFor(
      () => deviceSync(d0!.id),
      (s) => s.reconcilingSince === null,
    );
    expect(sync.lastReconciliation).toEqual({
      at: started.startedAt,
      checked: PEOPLE,
      requeued: 0,
      errors: 0,
    });
    // One read-back, not two.
    expect(gated.reads.get(d0!.sn)).toBe(PEOPLE);
    await waitFor(audited, (n) => n > 0);
    expect(await audited()).toBe(1);
  }, 120_000);

  test('stopping the service ends a requested reconciliation at its next read, and it says so', async () => {
    const [d0] = fleet.devices;
    let stopped: Promise<void> | undefined;
    gated.onRead((n) => {
      if (n === 25) stopped = server.ctx.sync.reconciliations.stop();
    });
    await ask(d0!.id);
    await until('the stop was asked for', () => stopped !== undefined);
    await stopped;
    const sync = await deviceSync(d0!.id);
    expect(sync.reconcilingSince).toBeNull();
    expect(sync.lastReconciliation?.error).toBe(RECONCILIATION_STOPPED);
    expect(sync.lastReconciliation?.checked).toBeLessThan(PEOPLE);
  }, 120_000);

  test('a reconciliation broken by something other than the device says so, and the device can be reconciled again', async () => {
    const [d0] = fleet.devices;
    let broken = true;
    gated.onRead(() => {
      if (broken) throw new Error('the read-back broke');
    });
    const first = await ask(d0!.id);
    let sync = await waitFor(
      () => deviceSync(d0!.id),
      (s) => s.reconcilingSince === null && s.lastReconciliation !== null,
    );
    expect(sync.lastReconciliation).toMatchObject({
      at: first.startedAt,
      error: 'Did not finish: the read-back broke',
    });
    broken = false;
    const second = await ask(d0!.id);
    expect(second.alreadyRunning).toBe(false);
    sync = await waitFor(
      () => deviceSync(d0!.id),
      (s) => s.lastReconciliation?.at === second.startedAt && s.reconcilingSince === null,
    );
    expect(sync.lastReconciliation).toEqual({
      at: second.startedAt,
      checked: PEOPLE,
      requeued: 0,
      errors: 0,
    });
  }, 120_000);

  test("the worker's periodic pass starts only when its period has passed and no online device has due work", async () => {
    const due = (sinceLastMs: number, everyMs = 1_000) =>
      periodicDue(server.ctx, { sinceLastMs, everyMs });
    // Converged: nothing is due.
    expect(await due(1_001)).toBe(true);
    expect(await due(999)).toBe(false);
    expect(await due(1_001, 0)).toBe(false);
    // A person edited and planned (the worker is not running): both devices have due work.
    const [personId] = fleet.expected.keys();
    const edit = await admin.request('PATCH', `/api/people/${personId}`, {
      body: { name: 'Renamed Fleet Person' },
      csrf: true,
    });
    expect(edit.status).toBe(200);
    expect((await planSync(server.ctx)).queued).toBe(2);
    expect(await due(1_001)).toBe(false);
    // Two periods late: it starts all the same.
    expect(await due(2_001)).toBe(true);
    await worker.runUntilIdle();
    expect(await due(1_001)).toBe(true);
  }, 120_000);

  test('the periodic pass waits for a device being reconciled on request instead of reading it twice', async () => {
    const [d0, d1] = fleet.devices;
    const registry = server.ctx.sync.reconciliations;
    const joined: string[] = [];
    const run = registry.run.bind(registry);
    registry.run = (ctx, device, request) => {
      const started = run(ctx, device, request);
      if (started.alreadyRunning) joined.push(device.id);
      return started;
    };
    // Only d0's read-back is held: the pass gets to it whichever device it takes first.
    gated.shut(d0!.sn);
    const started = await ask(d0!.id);
    const pass = reconcileAll(server.ctx, { client: gated.client });
    await until('the pass joined the run in progress', () => joined.includes(d0!.id));
    gated.open();
    await pass;
    expect(Object.fromEntries(gated.reads)).toEqual({ [d0!.sn]: PEOPLE, [d1!.sn]: PEOPLE });
    expect((await deviceSync(d0!.id)).lastReconciliation?.at).toBe(started.startedAt);
    expect((await deviceSync(d1!.id)).lastReconciliation?.checked).toBe(PEOPLE);
  }, 120_000);
});
