import { startDevice, type DeviceHandle, type Faults } from '@svc/sim';
import { deviceSyncOut, deviceWithKey, type DeviceSyncOut } from '@svc/shared';
import { createDeviceClient } from '../devices/client.js';
import type { DeviceClient } from '../devices/service.js';
import { createPerson } from '../people/service.js';
import { plainJpeg } from './images.js';
import { signedIn } from './admins.js';
import { scratchDb, type DialectName, type ScratchDb } from './dialects.js';
import { startTestServer, type TestServer } from './harness.js';
import type { TestClient } from './http-client.js';

/**
 * A fleet for the robustness suites: simulated devices in one space and many people with
 * photos (generated data only), written through the service functions so a large fleet is
 * quick to build. Every person belongs on every device.
 */
export interface Fleet {
  devices: { id: string; sn: string; sim: DeviceHandle }[];
  /** The space every device is in (and every seeded person has access to). */
  spaceId: string;
  /** Person id → what every device should end up holding. */
  expected: Map<string, { version: number; photoSha256: string }>;
}

let serial = 0;

export async function seedFleet(
  server: TestServer,
  opts: {
    people: number;
    devices: number;
    centralUrl: string;
    heartbeatIntervalMs: number;
    /** The simulated devices' faults from the start (e.g. `delayMs`: pushes held in flight). */
    faults?: Faults;
    /** The devices keep a log of the pushes they accept (`sim.pushes()`). */
    pushLog?: boolean;
  },
): Promise<Fleet> {
  const admin = await signedIn(server, 'admin');
  const space = await admin.post('/api/spaces', { name: `Fleet site ${++serial}` });
  if (space.status !== 201) throw new Error(`space: ${space.status}`);
  const spaceId = (space.body as { id: string }).id;
  const organizationId = (await server.ctx.models.Space.findByPk(spaceId))!.organizationId;
  const devices: Fleet['devices'] = [];
  for (let i = 0; i < opts.devices; i++) {
    const sn = `FLEET-${process.pid}-${++serial}`;
    const sim = await startDevice({
      sn,
      bindAddress: '127.0.0.1',
      httpPort: 0,
      heartbeatIntervalMs: opts.heartbeatIntervalMs,
      ...(opts.faults && { faults: opts.faults }),
      pushLog: opts.pushLog === true,
    });
    const reply = await admin.post('/api/devices', {
      sn,
      name: `Fleet door ${i}`,
      baseUrl: sim.url,
      spaceId,
    });
    if (reply.status !== 201) throw new Error(`device: ${reply.status}`);
    const device = deviceWithKey.parse(reply.body);
    await sim.setConnection({ key: device.key, centralUrl: opts.centralUrl });
    devices.push({ id: device.id, sn, sim });
  }
  // A handful of distinct photos, so a device holding the wrong one is noticed.
  const photos: string[] = [];
  for (let i = 0; i < 8; i++) {
    photos.push((await server.ctx.photos.ingest(await plainJpeg(64, 64, 20 + i * 25))).sha256);
  }
  const expected: Fleet['expected'] = new Map();
  const actor = { actor: { id: null, name: 'fleet seed' }, organizationId };
  // One transaction: a thousand people are one commit instead of a thousand.
  await server.ctx.db.sequelize.transaction(async (transaction) => {
    for (let i = 0; i < opts.people; i++) {
      const photoSha256 = photos[i % photos.length]!;
      const person = await createPerson(
        server.ctx,
        organizationId,
        {
          name: `Fleet Person ${serial}-${i}`,
          idNumber: `FLEET-${serial}-${i}`,
          spaceIds: [spaceId],
          photoSha256,
        },
        actor,
        transaction,
      );
      expected.set(person.id, { version: person.version, photoSha256 });
    }
  });
  return { devices, spaceId, expected };
}

/** A scratch database, a server on it and a fleet whose devices are online (heartbeat sent). */
export interface FleetSite {
  scratch: ScratchDb;
  server: TestServer;
  fleet: Fleet;
  /** Stops the devices and the server, drops the database. */
  close(): Promise<void>;
}

export async function startFleetSite(
  dialect: DialectName,
  opts: {
    people: number;
    devices: number;
    /** Server settings (e.g. SVC_PUSH_WORKER=1: the server's own worker runs). */
    env?: Record<string, string>;
    faults?: Faults;
    pushLog?: boolean;
  },
): Promise<FleetSite> {
  const scratch = await scratchDb(dialect);
  const server = await startTestServer({
    db: scratch.db,
    dataDir: scratch.dataDir,
    ...(opts.env && { env: opts.env }),
  });
  let fleet: Fleet | undefined;
  const close = async () => {
    for (const d of fleet?.devices ?? []) await d.sim.stop();
    await server.stop();
    await scratch.drop();
  };
  try {
    fleet = await seedFleet(server, {
      people: opts.people,
      devices: opts.devices,
      ...(opts.faults && { faults: opts.faults }),
      pushLog: opts.pushLog === true,
      centralUrl: server.url,
      heartbeatIntervalMs: 1_000,
    });
    for (const d of fleet.devices) expect((await d.sim.heartbeatNow())?.status).toBe(200);
  } catch (err) {
    await close();
    throw err;
  }
  return { scratch, server, fleet, close };
}

export type FleetSiteOptions = Parameters<typeof startFleetSite>[1];

/**
 * A fleet site for each test of the enclosing `describe` that asks for one, closed after the
 * test (`afterEach`); returns the function that starts it.
 */
export function fleetSitePerTest(
  dialect: DialectName,
): (opts: FleetSiteOptions) => Promise<FleetSite> {
  let site: FleetSite | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });
  return async (opts) => (site = await startFleetSite(dialect, opts));
}

/** A device's task counts as the sync API shows them (running: pushes in flight). */
export async function syncCounts(
  admin: TestClient,
  deviceId: string,
): Promise<DeviceSyncOut['counts']> {
  return deviceSyncOut.parse((await admin.get(`/api/sync/devices/${deviceId}`)).body).counts;
}

/** A device's task counts as `syncCounts` reads them: 0 in every state but those given. */
export function onlyCounts(some: Partial<DeviceSyncOut['counts']>): DeviceSyncOut['counts'] {
  return { pending: 0, running: 0, succeeded: 0, failed: 0, waitingPhoto: 0, ...some };
}

/**
 * The (person, version, photo) pushes a device accepted more than once, with their counts:
 * a device re-extracts a face template for each, so one is real work wasted.
 */
export function repeatedPushes(sim: DeviceHandle): Record<string, number> {
  const seen = new Map<string, number>();
  for (const p of sim.pushes()) {
    const key = `${p.action} ${p.personId} v${p.version ?? '-'} ${p.photoSha256 ?? '-'}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return Object.fromEntries([...seen].filter(([, n]) => n > 1));
}

/** What a simulated device holds, in the shape of `Fleet.expected`. */
export function holdings(sim: DeviceHandle): Map<string, { version: number; photoSha256: string }> {
  return new Map(
    Object.entries(sim.persons()).map(([id, s]) => [
      id,
      { version: s.version, photoSha256: s.photoSha256 },
    ]),
  );
}

/** Tasks counted by state (only the states present). */
export function statesOf(tasks: readonly { state: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tasks) counts[t.state] = (counts[t.state] ?? 0) + 1;
  return counts;
}

/**
 * The end state both robustness suites demand: one task per person and device, all
 * `succeeded` with the version and photo the device acknowledged equal to the central record,
 * and every device holding exactly its people.
 */
export async function expectConverged(server: TestServer, fleet: Fleet): Promise<void> {
  const tasks = await server.ctx.models.SyncTask.findAll({ raw: true });
  const pairs = new Set(tasks.map((t) => `${t.personId}/${t.deviceId}`));
  expect(pairs.size).toBe(tasks.length);
  expect(tasks).toHaveLength(fleet.expected.size * fleet.devices.length);
  expect(statesOf(tasks)).toEqual({ succeeded: tasks.length });
  const wrong = tasks.filter((t) => {
    const want = fleet.expected.get(t.personId);
    return (
      t.action !== 'put' ||
      t.resultVersion !== want?.version ||
      t.resultPhotoSha256 !== want.photoSha256
    );
  });
  expect(wrong).toEqual([]);
  for (const d of fleet.devices) expect(holdings(d.sim)).toEqual(fleet.expected);
}

/**
 * The device client, with its read-backs (what reconciliation does) counted per device and
 * held at a gate while it is shut: a reconciliation in progress for as long as a test needs.
 * `onRead` hears each read with the running total (a test stops the service at the 25th).
 */
export function gatedClient(onRead: (total: number) => void = () => {}) {
  const client = createDeviceClient();
  const reads = new Map<string, number>();
  let gate: Promise<void> = Promise.resolve();
  /** Only this device's reads wait at the gate (every device's when undefined). */
  let gatedSn: string | undefined;
  let open = () => {};
  let total = 0;
  let hook = onRead;
  const gated: DeviceClient = {
    ...client,
    getPerson: async (target, id) => {
      reads.set(target.sn, (reads.get(target.sn) ?? 0) + 1);
      hook(++total);
      if (gatedSn === undefined || gatedSn === target.sn) await gate;
      return client.getPerson(target, id);
    },
  };
  return {
    client: gated,
    reads,
    shut: (sn?: string) => {
      gatedSn = sn;
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => open(),
    onRead: (fn: (total: number) => void) => (hook = fn),
  };
}
