import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { QueryTypes } from 'sequelize';
import { personOut } from '@svc/shared';
import type { TerminalHandle } from '@svc/sim';
import { plainJpeg } from '../../test/images.js';
import { simulatedDisplay } from '../../test/recognition.js';
import { SIGNED_IN_PASSWORD, signedIn } from '../../test/admins.js';
import { TestClient } from '../../test/http-client.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { requireBuild, spawnServer, type Spawned } from '../../test/process.js';
import { LEASE_MS } from '../knobs.js';
import { expectConverged, holdings, seedFleet, type Fleet } from '../../test/sync-fleet.js';
import { until, waitFor } from '../../test/wait.js';

const PEOPLE = 300;
const DEVICES = 4;
/** The killed replica looks for work this often (SVC_PUSH_INTERVAL, seconds). */
const INTERVAL_S = 1;
/**
 * The survivor only on its API's kicks (and once a minute): the devices enabled through the
 * other replica are planned and taken by it, not raced for by the survivor's tick (under a
 * loaded machine the survivor won that race every time).
 */
const SURVIVOR_INTERVAL_S = 60;

/**
 * Two replicas on one MariaDB database sharing DATA_DIR (photos, the device-key secret), the
 * devices heartbeating to both: one takes the people's changes, the other is a real process
 * killed with SIGKILL a third of the way through, while it holds devices (they are enabled
 * through it, so it plans and takes them first, and they answer slowly so it stays busy). The survivor takes the devices over when their leases run out; the only repeats are
 * pushes the dead one had made and not recorded. Recognition events posted to either reach
 * the display once.
 */
const mysqlOnly = DIALECTS.filter((d) => d === 'mysql');
describe.each(mysqlOnly)('two replicas, one killed (%s)', (dialect) => {
  let scratch: ScratchDb;
  let survivor: TestServer | undefined;
  let killed: Spawned | undefined;
  let fleet: Fleet | undefined;
  let display: TerminalHandle | undefined;
  let beating: NodeJS.Timeout | undefined;
  beforeAll(requireBuild);
  afterAll(async () => {
    clearInterval(beating);
    if (killed && killed.child.exitCode === null) killed.child.kill('SIGKILL');
    for (const d of fleet?.devices ?? []) await d.sim.stop();
    await display?.stop();
    await survivor?.stop();
    await scratch?.drop();
  });

  test('300 people with photos through one, the other SIGKILLed: converged, repeats only of pushes in flight, events shown once', async () => {
    scratch = await scratchDb(dialect);
    const env = { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: String(INTERVAL_S) };
    survivor = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { ...env, SVC_PUSH_INTERVAL: String(SURVIVOR_INTERVAL_S) },
    });
    const admin = await signedIn(survivor, 'admin');
    const panel = await simulatedDisplay();
    display = panel.display;
    const superadmin = await signedIn(survivor, 'superadmin');
    expect(
      (await superadmin.post('/api/panel/route', { mode: 'local', url: panel.url })).status,
    ).toBe(200);
    fleet = await seedFleet(survivor, {
      people: 0,
      devices: DEVICES,
      centralUrl: survivor.url,
      heartbeatIntervalMs: 1_000,
      pushLog: true,
      faults: { delayMs: 300 },
    });
    const username = `replica-admin-${process.pid}`;
    const viaSurvivor = await signedIn(survivor, 'admin', username);
    for (const d of fleet.devices) {
      const off = await viaSurvivor.request('PATCH', `/api/devices/${d.id}`, {
        body: { enabled: false },
        csrf: true,
      });
      expect(off.status).toBe(200);
    }
    const db = scratch.db;
    if (db.dialect !== 'mysql') throw new Error('replicas share a MariaDB database');
    const other = await spawnServer({
      ...env,
      HTTP_HOST: '127.0.0.1',
      DATA_DIR: scratch.dataDir,
      SVC_DISCOVERY_WORKER: '0',
      LOG_LEVEL: 'warn',
      DB_HOST: db.host,
      DB_PORT: String(db.port),
      DB_USER: db.user,
      DB_PASSWORD: db.password,
      DB_DATABASE: db.database,
    });
    killed = other.proc;
    const otherUrl = other.url;
    // The simulators beat to the survivor; the test beats for them to the other replica too.
    const keys = new Map<string, string>();
    for (const d of fleet.devices) {
      const row = await survivor.ctx.models.Device.findByPk(d.id);
      keys.set(d.sn, await survivor.ctx.deviceKeys.open(row!.id));
    }
    const beatOther = () =>
      Promise.all(
        fleet!.devices.map((d) =>
          fetch(`${otherUrl}/api/device/heartbeat`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${keys.get(d.sn)!}`,
            },
            body: JSON.stringify({ sn: d.sn, time: new Date().toISOString() }),
          }).catch(() => undefined),
        ),
      );
    await beatOther();
    beating = setInterval(() => void beatOther(), 1_000);

    const events: string[] = [];
    const post = async (url: string, personId: string) => {
      const eventId = randomUUID();
      const res = await fetch(`${url}/api/recognition/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${keys.get(fleet!.devices[0]!.sn)!}`,
        },
        body: JSON.stringify({
          eventId,
          sn: fleet!.devices[0]!.sn,
          personId,
          score: 0.9,
          time: new Date().toISOString(),
        }),
      });
      expect(res.status).toBe(202);
      events.push(eventId);
    };

    const viaOther = new TestClient(otherUrl);
    expect((await viaOther.login(username, SIGNED_IN_PASSWORD)).status).toBe(200);
    // Its name in sync_device_leases starts with its host and pid (device-leases.ts).
    const otherHolds = async () =>
      (
        await survivor!.ctx.db.sequelize.query<{ device_id: string }>(
          'SELECT device_id FROM sync_device_leases WHERE owner LIKE :owner AND expires_at > :now',
          {
            replacements: {
              owner: `${hostname().slice(0, 32)}:${killed!.child.pid}:%`,
              now: new Date(),
            },
            type: QueryTypes.SELECT,
          },
        )
      ).map((r) => r.device_id);
    const pushedSoFar = () => fleet!.devices.map((d) => d.sim.pushes().length);

    let allowed = new Set<string>();
    let atKill: number[] = [];
    let killedAt = 0;
    let held: string[] = [];
    let tookOver: Promise<number> = Promise.reject(new Error('never killed'));
    tookOver.catch(() => undefined);
    for (let i = 0; i < PEOPLE; i++) {
      const created = await admin.post('/api/people', {
        name: `Replica Person ${i}`,
        idNumber: `REPLICA-${i}`,
        spaceIds: [fleet.spaceId],
      });
      expect(created.status).toBe(201);
      const { id } = personOut.parse(created.body);
      const photo = await admin.request('PUT', `/api/people/${id}/photo`, {
        body: { photo: (await plainJpeg(64, 64, 10 + (i % 60) * 4)).toString('base64') },
        csrf: true,
      });
      expect(photo.status).toBe(200);
      const person = personOut.parse((await admin.get(`/api/people/${id}`)).body);
      fleet.expected.set(id, { version: person.version, photoSha256: person.photoSha256! });
      if (i === PEOPLE / 3) {
        // The devices join through the other replica: it plans them at once (the survivor
        // would at its next tick) and takes every one.
        for (const d of fleet.devices) {
          const on = await viaOther.request('PATCH', `/api/devices/${d.id}`, {
            body: { enabled: true },
            csrf: true,
          });
          expect(on.status).toBe(200);
        }
        await until('the other replica holds devices', async () => (await otherHolds()).length > 0);
        // One recognition event to each replica while both run.
        await post(otherUrl, id);
        await post(survivor.url, id);
        await until('pushes in flight', () => pushedSoFar().every((n) => n >= 10));
        held = await otherHolds();
        killed.child.kill('SIGKILL');
        await killed.exited;
        killedAt = Date.now();
        allowed = await pushedNotRecorded(survivor, fleet);
        atKill = pushedSoFar();
        for (const d of fleet.devices) await d.sim.setFaults({});
        // Watched while the people go on being created: the first push to each device it held.
        const dead = fleet.devices.filter((d) => held.includes(d.id));
        // From now on the survivor looks for work every INTERVAL_S, as a replica with that
        // interval would (its long interval only kept it from winning the devices before the
        // kill); without it, takeover waited for the next API kick or its 60 s tick.
        const ticks = setInterval(() => survivor!.ctx.sync.worker?.kick(), INTERVAL_S * 1000);
        tookOver = until(
          "the survivor takes the dead replica's devices",
          () => dead.every((d) => d.sim.pushes().length > atKill[fleet!.devices.indexOf(d)]!),
          2 * LEASE_MS,
        )
          .then(() => Date.now() - killedAt)
          .finally(() => clearInterval(ticks));
      }
    }
    const createdAt = Date.now();
    const tookOverMs = await tookOver;
    // Every device the dead replica held is pushed to again within the lease and a few intervals.
    const takeover = LEASE_MS + 5 * INTERVAL_S * 1000;
    expect(tookOverMs).toBeLessThanOrEqual(takeover);
    await until(
      'every device holds its people',
      () => fleet!.devices.every((d) => sameHoldings(holdings(d.sim), fleet!.expected)),
      takeover,
    );
    const convergedMs = Date.now() - createdAt;
    await waitFor(
      () => survivor!.ctx.models.RecognitionEvent.findAll({ where: { eventId: events } }),
      (rows) => rows.length === 2 && rows.every((r) => r.deliveryState === 'delivered'),
      LEASE_MS + 10_000,
    );
    await until('every task written', async () => {
      const open = await survivor!.ctx.models.SyncTask.count({ where: { state: 'pending' } });
      return open === 0;
    });
    await expectConverged(survivor, fleet);
    // The display shows each event once, whichever replica took it.
    expect([...panel.shown].sort()).toEqual([...events].sort());

    // A repeat only of a push the killed replica made and never recorded.
    const repeats: string[] = [];
    for (const d of fleet.devices) {
      const seen = new Set<string>();
      for (const p of d.sim.pushes()) {
        const key = `${d.sn} ${p.personId} v${p.version ?? '-'} ${p.photoSha256 ?? '-'}`;
        if (seen.has(key)) repeats.push(key);
        seen.add(key);
      }
    }
    expect(repeats.filter((r) => !allowed.has(r))).toEqual([]);
    process.stdout.write(
      `[sync replicas] the killed replica held ${held.length} of ${DEVICES} devices, taken over ${tookOverMs} ms after the kill, all converged ` +
        `${convergedMs} ms after the last change (lease ${LEASE_MS} ms); ` +
        `${repeats.length} repeats, ${allowed.size} pushes in flight at the kill\n`,
    );
  }, 300_000);
});

const sameHoldings = (
  held: Map<string, { version: number; photoSha256: string }>,
  expected: Fleet['expected'],
) =>
  held.size === expected.size &&
  [...expected].every(
    ([id, want]) =>
      held.get(id)?.version === want.version && held.get(id)?.photoSha256 === want.photoSha256,
  );

/**
 * Pushes a device accepted whose task is still pending: right after the kill, what the dead
 * replica pushed and never recorded (and perhaps the survivor's own, which it records).
 */
async function pushedNotRecorded(server: TestServer, fleet: Fleet): Promise<Set<string>> {
  const held = new Map(fleet.devices.map((d) => [d.id, { sn: d.sn, has: holdings(d.sim) }]));
  const pending = await server.ctx.models.SyncTask.findAll({
    where: { state: 'pending', action: 'put' },
    raw: true,
  });
  const keys = new Set<string>();
  for (const t of pending) {
    const device = held.get(t.deviceId);
    const has = device?.has.get(t.personId);
    if (!device || !has) continue;
    keys.add(`${device.sn} ${t.personId} v${has.version} ${has.photoSha256}`);
  }
  return keys;
}
