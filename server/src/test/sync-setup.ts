import { startDevice, type DeviceHandle, type PhotoLimits } from '@svc/sim';
import { deviceWithKey } from '@svc/shared';
import { createPerson } from '../people/service.js';
import { plainJpeg } from './images.js';
import type { TestServer } from './harness.js';
import type { TestClient } from './http-client.js';

/** Small building blocks of the in-process sync suites (generated data only). */
export interface SimDevice {
  id: string;
  sn: string;
  sim: DeviceHandle;
}

let serial = 0;

export async function createSpace(
  admin: TestClient,
  name: string,
  parentId?: string,
): Promise<string> {
  const reply = await admin.post('/api/spaces', { name, ...(parentId && { parentId }) });
  if (reply.status !== 201) throw new Error(`space: ${reply.status}`);
  return (reply.body as { id: string }).id;
}

/**
 * A simulated device (no automatic heartbeats: the test beats) registered in `spaceId`; with
 * `photoLimits` the simulator refuses photos beyond them, `fields` go into the registration.
 */
export async function registerSim(
  server: TestServer,
  admin: TestClient,
  spaceId: string,
  { photoLimits, fields }: { photoLimits?: PhotoLimits; fields?: Record<string, unknown> } = {},
): Promise<SimDevice> {
  const sn = `ROBUST-${process.pid}-${++serial}`;
  const sim = await startDevice({
    sn,
    bindAddress: '127.0.0.1',
    httpPort: 0,
    heartbeatIntervalMs: 0,
    pushLog: true,
    ...(photoLimits && { photoLimits }),
  });
  const reply = await admin.post('/api/devices', {
    sn,
    name: `Door ${serial}`,
    baseUrl: sim.url,
    spaceId,
    ...fields,
  });
  if (reply.status !== 201) {
    await sim.stop();
    throw new Error(`device: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const device = deviceWithKey.parse(reply.body);
  await sim.setConnection({ key: device.key, centralUrl: server.url });
  return { id: device.id, sn, sim };
}

/** A person with a photo and access to `spaceIds`, written through the people service. */
export async function addPerson(
  server: TestServer,
  organizationId: string,
  spaceIds: string[],
): Promise<{ id: string; version: number; photoSha256: string }> {
  const n = ++serial;
  const photo = await server.ctx.photos.ingest(await plainJpeg(64, 64, n % 250));
  const person = await createPerson(
    server.ctx,
    organizationId,
    {
      name: `Robust Person ${n}`,
      idNumber: `ROBUST-${process.pid}-${n}`,
      spaceIds,
      photoSha256: photo.sha256,
    },
    { actor: { id: null, name: 'test' }, organizationId },
  );
  return { id: person.id, version: person.version, photoSha256: photo.sha256 };
}

export async function organizationOf(server: TestServer, spaceId: string): Promise<string> {
  return (await server.ctx.models.Space.findByPk(spaceId))!.organizationId;
}

/** A space of its own named `name`, one simulated device in it: what a push test starts from. */
export interface SimDoor {
  d: SimDevice;
  spaceId: string;
  /** The space's organization (the administrator's). */
  org: string;
}

/**
 * A space named `name` with a simulated device registered in it and pushed to `devices` (the
 * suite stops them); the device beats once unless `beat: false`.
 */
export async function simDoor(
  server: TestServer,
  admin: TestClient,
  name: string,
  { devices, beat: beatNow = true }: { devices: SimDevice[]; beat?: boolean },
): Promise<SimDoor> {
  const spaceId = await createSpace(admin, name);
  const d = await registerSim(server, admin, spaceId);
  devices.push(d);
  if (beatNow) await beat(d);
  return { d, spaceId, org: await organizationOf(server, spaceId) };
}

export async function beat(...devices: SimDevice[]): Promise<void> {
  for (const d of devices) {
    const result = await d.sim.heartbeatNow();
    if (result?.status !== 200) throw new Error(`heartbeat of ${d.sn}: ${result?.status}`);
  }
}

/** What a device holds: person id → version and photo hash. */
export function held(d: SimDevice): Record<string, { version: number; photoSha256: string }> {
  return Object.fromEntries(
    Object.entries(d.sim.persons()).map(([id, s]) => [
      id,
      { version: s.version, photoSha256: s.photoSha256 },
    ]),
  );
}
