import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { QueryTypes } from 'sequelize';
import { heartbeatResponse } from '@svc/shared';
import type { TerminalHandle } from '@svc/sim';
import { simulatedDisplay } from '../../test/recognition.js';
import { SIGNED_IN_PASSWORD, signedIn } from '../../test/admins.js';
import { GaleraCluster, galeraUnavailable } from '../../test/galera-cluster.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { TestClient } from '../../test/http-client.js';
import { requireBuild, spawnServer, type Spawned } from '../../test/process.js';
import { LEASE_MS } from '../knobs.js';
import { expectConverged, holdings, seedFleet, type Fleet } from '../../test/sync-fleet.js';
import { Outages, postUntilAccepted } from '../../test/galera-probes.js';
import { until, waitFor } from '../../test/wait.js';

const PEOPLE = 300;
const DEVICES = 3;
const EVENTS_PER_S = 20;
/** Sign-in and heartbeat through the surviving replica may fail this long in all. */
const MAX_ERROR_S = 5;

/**
 * Issue 35: two replicas on a three-node Galera cluster of the test's own, proven by killing
 * things while 300 people synchronize to 3 devices and the devices post 20 events/s to
 * whichever replica answers. Replica A (in-process, on node 0) survives; replica B (the built
 * server, on node 1) holds devices. The test SIGKILLs node 0 under A, then B, then restarts
 * node 0, which rejoins by IST or SST.
 */
const unavailable = galeraUnavailable();
const describeCluster = unavailable ? describe.skip : describe;
if (unavailable) process.stdout.write(`[galera] replica suite skipped: ${unavailable}\n`);

describeCluster('two replicas on a Galera cluster, nodes and a replica killed', () => {
  let cluster: GaleraCluster | undefined;
  let a: TestServer | undefined;
  let b: Spawned | undefined;
  let fleet: Fleet | undefined;
  let display: TerminalHandle | undefined;
  const stops: (() => void)[] = [];
  beforeAll(requireBuild);
  afterAll(async () => {
    for (const stop of stops) stop();
    if (b && b.child.exitCode === null) b.child.kill('SIGKILL');
    for (const d of fleet?.devices ?? []) await d.sim.stop();
    await display?.stop();
    await a?.stop();
    await cluster?.destroy();
  }, 120_000);

  test('pairs converge, no task fails, accepted events stored once and shown once, survivor errs ≤ 5 s', async () => {
    cluster = await GaleraCluster.create(3);
    const db = await cluster.appAccount([0, 1, 2]);
    a = await startTestServer({
      db,
      dataDir: cluster.dir,
      // Only on its API's kicks at first: the devices enabled through B are B's to take.
      env: { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: '60' },
    });
    const admin = await signedIn(a, 'admin');
    const panel = await simulatedDisplay();
    display = panel.display;
    const superadmin = await signedIn(a, 'superadmin');
    expect(
      (await superadmin.post('/api/panel/route', { mode: 'local', url: panel.url })).status,
    ).toBe(200);
    fleet = await seedFleet(a, {
      people: PEOPLE,
      devices: DEVICES,
      centralUrl: a.url,
      heartbeatIntervalMs: 1_000,
      pushLog: true,
      faults: { delayMs: 100 },
    });
    for (const d of fleet.devices) {
      const off = await admin.request('PATCH', `/api/devices/${d.id}`, {
        body: { enabled: false },
        csrf: true,
      });
      expect(off.status).toBe(200);
    }
    const spawned = await spawnServer(
      {
        HTTP_HOST: '127.0.0.1',
        DATA_DIR: cluster.dir,
        SVC_DISCOVERY_WORKER: '0',
        SVC_PUSH_WORKER: '1',
        SVC_PUSH_INTERVAL: '1',
        LOG_LEVEL: 'warn',
        DB_HOST: cluster.hostList([1, 2, 0]),
        DB_USER: db.user,
        DB_PASSWORD: db.password,
        DB_DATABASE: db.database,
      },
      180_000,
    );
    b = spawned.proc;
    const urls = [a.url, spawned.url];
    const username = `galera-admin-${process.pid}`;
    await signedIn(a, 'admin', username);
    const viaB = new TestClient(spawned.url);
    expect((await viaB.login(username, SIGNED_IN_PASSWORD)).status).toBe(200);

    // The devices join again through B: it plans and takes them.
    for (const d of fleet.devices) {
      const on = await viaB.request('PATCH', `/api/devices/${d.id}`, {
        body: { enabled: true },
        csrf: true,
      });
      expect(on.status).toBe(200);
    }

    const sn = fleet.devices[0]!.sn;
    const key = await a.ctx.deviceKeys.open(fleet.devices[0]!.id);
    const people = [...fleet.expected.keys()];
    const accepted: string[] = [];
    let posting = true;
    const poster = (async () => {
      const inFlight: Promise<void>[] = [];
      for (let i = 0; posting; i++) {
        const body = {
          eventId: randomUUID(),
          sn,
          personId: people[i % people.length]!,
          score: 0.9,
          time: new Date().toISOString(),
        };
        inFlight.push(
          postUntilAccepted(urls, i, key, body).then(
            (ok) => void (ok && accepted.push(body.eventId)),
          ),
        );
        await new Promise((r) => setTimeout(r, 1000 / EVENTS_PER_S));
      }
      await Promise.all(inFlight);
    })();
    // When each show reached the display (sampled), to tell a resend after a kill.
    const shownAt: number[] = [];
    const sampler = setInterval(() => {
      while (shownAt.length < panel.shown.length) shownAt.push(Date.now());
    }, 100);
    stops.push(() => clearInterval(sampler));
    const outages = new Outages();
    outages.watch(a.url, username);
    stops.push(() => void outages.stop());

    const holdsOf = (pid: number) => async () =>
      (
        await a!.ctx.db.sequelize.query<{ device_id: string }>(
          'SELECT device_id FROM sync_device_leases WHERE owner LIKE :owner AND expires_at > :now',
          {
            replacements: { owner: `${hostname().slice(0, 32)}:${pid}:%`, now: new Date() },
            type: QueryTypes.SELECT,
          },
        )
      ).map((r) => r.device_id);
    const bHolds = holdsOf(b.child.pid!);
    const aHolds = holdsOf(process.pid);
    const pushed = () => fleet!.devices.map((d) => d.sim.pushes().length);
    await until(
      'B holds devices and pushes are in flight',
      async () => (await bHolds()).length > 0 && pushed().every((n) => n >= 10),
      180_000,
    );

    // 1. The node under replica A dies.
    await cluster.nodes[0]!.kill();
    const nodeKilledAt = Date.now();
    await until(
      'A answers through another node',
      async () => {
        const hb = await fetch(`${a!.url}/api/heartbeat`).then(async (r) =>
          heartbeatResponse.parse(await r.json()),
        );
        return hb.state === 1 && hb.database.node !== cluster!.nodes[0]!.address;
      },
      60_000,
    );
    const aMovedMs = Date.now() - nodeKilledAt;

    // 2. Replica B dies while it holds devices.
    const held = await bHolds();
    b.child.kill('SIGKILL');
    await b.exited;
    const bKilledAt = Date.now();
    // Pushes B had sent land within the devices' delay; only pushes after those are A's.
    await new Promise((r) => setTimeout(r, 1_000));
    const atKill = pushed();
    const ticks = setInterval(() => a!.ctx.sync.worker?.kick(), 1_000);
    stops.push(() => clearInterval(ticks));
    const dead = fleet.devices.filter((d) => held.includes(d.id));
    // Taken over: A pushes to each device B left unfinished (only A is alive; a push needs the
    // device's lease) or is seen holding it. A device B had finished needs nobody: A has nothing
    // due there, so it never takes that lease, and after finishing a device A lets it go.
    const doneAtKill = dead.map((d) => same(holdings(d.sim), fleet!.expected));
    const heldOnce = new Set<string>();
    // Each of B's devices as last polled: the failure's message says which one lagged, how.
    await waitFor(
      async () => {
        const mine = await aHolds();
        return dead.map((d, i) => {
          if (mine.includes(d.id)) heldOnce.add(d.id);
          return {
            device: d.id,
            doneAtKill: doneAtKill[i]!,
            heldByA: heldOnce.has(d.id),
            pushesSinceKill: d.sim.pushes().length - atKill[fleet!.devices.indexOf(d)]!,
          };
        });
      },
      (rows) => rows.every((r) => r.doneAtKill || r.heldByA || r.pushesSinceKill > 0),
      { what: "A takes B's devices", ms: 4 * LEASE_MS, everyMs: 50 },
    );
    const takeoverMs = Date.now() - bKilledAt;

    // 3. The node comes back and rejoins.
    const rejoinStarted = Date.now();
    await cluster.nodes[0]!.start();
    const rejoinMs = Date.now() - rejoinStarted;
    const joinedBy = /IST received|Receiving IST/.test(cluster.nodes[0]!.output()) ? 'IST' : 'SST';

    await until(
      'every device holds its people',
      () => fleet!.devices.every((d) => same(holdings(d.sim), fleet!.expected)),
      300_000,
    );
    posting = false;
    await poster;
    await outages.stop();
    await until(
      'every task written',
      async () =>
        (await a!.ctx.models.SyncTask.count({ where: { state: ['pending', 'running'] } })) === 0,
      120_000,
    );
    const failed = await a.ctx.models.SyncTask.count({ where: { state: 'failed' } });
    expect(failed).toBe(0);
    await expectConverged(a, fleet);

    const stored = await a.ctx.models.RecognitionEvent.findAll({
      where: { eventId: accepted },
      raw: true,
    });
    await until(
      'every accepted event shown',
      () => accepted.every((id) => panel.shown.includes(id)),
      120_000,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    clearInterval(sampler);
    while (shownAt.length < panel.shown.length) shownAt.push(Date.now());
    const times = new Map<string, number[]>();
    panel.shown.forEach((id, i) => times.set(id, [...(times.get(id) ?? []), shownAt[i]!]));
    const shownOnce = accepted.filter((id) => times.get(id)?.length === 1);
    // Panel delivery is at least once (recognition/README.md): an event the holder sent and
    // could not record as delivered (its node or itself killed) is sent again, and the display
    // shows an event id once.
    const deliveredAgain = panel.repeats.length;
    const errorS = outages.errorSeconds();
    process.stdout.write(
      `[galera replicas] ${fleet.expected.size * DEVICES} pairs converged, ${failed} tasks failed; ` +
        `events accepted ${accepted.length}, stored ${stored.length}, shown once ${shownOnce.length}, ` +
        `delivered again after a kill ${deliveredAgain} (not shown again); survivor errors ${errorS.toFixed(1)} s ` +
        `(${outages.summary()}); A on another node ${aMovedMs} ms after its node died; ` +
        `B's ${held.length} devices (${doneAtKill.filter((done) => !done).length} unfinished) taken over ` +
        `${takeoverMs} ms after B died (lease ${LEASE_MS} ms); ` +
        `node 0 rejoined by ${joinedBy} in ${rejoinMs} ms\n`,
    );
    expect(stored.map((e) => e.eventId).sort()).toEqual([...accepted].sort());
    expect(panel.shown.filter((id) => !accepted.includes(id))).toEqual([]);
    // Every accepted event reached the display and was shown exactly once.
    expect(shownOnce.length).toBe(accepted.length);
    expect(panel.shown.length).toBe(accepted.length);
    expect(errorS).toBeLessThanOrEqual(MAX_ERROR_S);
  }, 900_000);
});

const same = (held: ReturnType<typeof holdings>, expected: Fleet['expected']) =>
  held.size === expected.size &&
  [...expected].every(
    ([id, want]) =>
      held.get(id)?.version === want.version && held.get(id)?.photoSha256 === want.photoSha256,
  );
