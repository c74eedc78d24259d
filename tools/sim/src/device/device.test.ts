import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MAX_SNAPSHOT_BYTES, devicePersonState, errorBody, recognitionEventIn } from '@svc/shared';
import jpeg from 'jpeg-js';
import { startCentralStub } from '../test/central-stub.js';
import { bearer, request } from '../test/http-client.js';
import { waitFor } from '../test/wait-for.js';
import { startDevice } from './device.js';
import type { DeviceHandle, DeviceOptions } from './device.js';

const KEY = 'device-key-0123456789';
let central: Awaited<ReturnType<typeof startCentralStub>>;
let dir: string;
const running: DeviceHandle[] = [];

beforeEach(async () => {
  central = await startCentralStub((req) =>
    req.path === '/api/recognition/events'
      ? { status: 202, body: { id: 'rec-1' } }
      : { status: 200, body: { serverTime: new Date().toISOString() } },
  );
  dir = await mkdtemp(join(tmpdir(), 'svc-sim-device-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((device) => device.stop()));
  await central.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Partial<DeviceOptions> = {}): Promise<DeviceHandle> {
  const device = await startDevice({
    sn: 'DEV-1',
    key: KEY,
    bindAddress: '127.0.0.1',
    heartbeatIntervalMs: 0,
    ...options,
  });
  running.push(device);
  return device;
}

function person(id: string, version = 1, photo = Buffer.from(`photo of ${id}`)) {
  return {
    id,
    name: `Person ${id}`,
    photo: photo.toString('base64'),
    photoSha256: createHash('sha256').update(photo).digest('hex'),
    version,
  };
}

const put = (device: DeviceHandle, body: { id: string; version?: number }, key = KEY) =>
  request(`${device.url}/api/persons/${body.id}`, { method: 'PUT', body, headers: bearer(key) });

describe('persons API (PROTOCOL §3)', () => {
  it('stores, reads and deletes a person, idempotently', async () => {
    const device = await start();
    const body = person('p-1', 3);
    const expected = { id: 'p-1', version: 3, photoSha256: body.photoSha256 };
    for (let i = 0; i < 2; i++) {
      const stored = await put(device, body);
      expect(stored.status).toBe(200);
      expect(devicePersonState.strict().parse(stored.json)).toEqual(expected);
    }
    expect(device.persons()).toEqual({ 'p-1': expected });
    expect(device.person('p-1')).toEqual(expected);
    expect(device.person('p-2')).toBeUndefined();
    const read = await request(`${device.url}/api/persons/p-1`, { headers: bearer(KEY) });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(expected);

    const updated = await put(device, person('p-1', 4));
    expect(updated.json).toMatchObject({ version: 4 });

    const gone = await request(`${device.url}/api/persons/p-1`, {
      method: 'DELETE',
      headers: bearer(KEY),
    });
    expect(gone.status).toBe(200);
    const again = await request(`${device.url}/api/persons/p-1`, {
      method: 'DELETE',
      headers: bearer(KEY),
    });
    expect(again.status).toBe(404);
    expect(errorBody.parse(again.json).error.code).toBe('not_found');
    const missing = await request(`${device.url}/api/persons/p-1`, { headers: bearer(KEY) });
    expect(missing.status).toBe(404);
    expect(device.persons()).toEqual({});
  });

  it('answers 401 without the device key', async () => {
    const device = await start();
    expect((await put(device, person('p-1'), 'wrong-key')).status).toBe(401);
    const bare = await request(`${device.url}/api/persons/p-1`, {
      method: 'PUT',
      body: person('p-1'),
    });
    expect(bare.status).toBe(401);
    expect(errorBody.parse(bare.json).error.code).toBe('unauthorized');
    expect((await request(`${device.url}/api/persons/p-1`)).status).toBe(401);
    expect((await request(`${device.url}/api/persons/p-1`, { method: 'DELETE' })).status).toBe(401);
    expect(device.persons()).toEqual({});
  });

  it('answers 401 to everything until a key is set', async () => {
    const device = await start({ key: undefined });
    expect((await put(device, person('p-1'), '')).status).toBe(401);
    await device.setConnection({ key: KEY });
    expect((await put(device, person('p-1'))).status).toBe(200);
  });

  it('rejects a photo whose hash does not match, and a body for another id', async () => {
    const device = await start();
    const wrongHash = { ...person('p-1'), photoSha256: 'a'.repeat(64) };
    const answer = await put(device, wrongHash);
    expect(answer.status).toBe(400);
    expect(errorBody.parse(answer.json).error.code).toBe('photo_hash_mismatch');
    const otherId = await request(`${device.url}/api/persons/p-2`, {
      method: 'PUT',
      body: person('p-1'),
      headers: bearer(KEY),
    });
    expect(otherId.status).toBe(400);
    const invalid = await put(device, { ...person('p-1'), version: -1 });
    expect(invalid.status).toBe(400);
    expect(errorBody.parse(invalid.json).error.fields).toHaveProperty('version');
    expect(device.persons()).toEqual({});

    // A photo already checked under a hash does not vouch for other bytes under that hash.
    const good = person('p-3');
    expect((await put(device, good)).status).toBe(200);
    const swapped = {
      ...person('p-4', 1, Buffer.from('other bytes')),
      photoSha256: good.photoSha256,
    };
    expect(errorBody.parse((await put(device, swapped)).json).error.code).toBe(
      'photo_hash_mismatch',
    );
    expect(Object.keys(device.persons())).toEqual(['p-3']);
  });

  it('answers 507 beyond its capacity but still updates a person it holds', async () => {
    const device = await start({ capacity: 2 });
    expect((await put(device, person('p-1'))).status).toBe(200);
    expect((await put(device, person('p-2'))).status).toBe(200);
    const full = await put(device, person('p-3'));
    expect(full.status).toBe(507);
    expect(errorBody.parse(full.json).error.code).toBe('capacity_exceeded');
    expect((await put(device, person('p-2', 2))).status).toBe(200);
    expect(Object.keys(device.persons()).sort()).toEqual(['p-1', 'p-2']);
    expect(device.personCount()).toBe(2);
  });

  it('can lose a person silently, and keeps its people across a restart', async () => {
    const stateFile = join(dir, 'dev.json');
    const first = await start({ stateFile });
    await put(first, person('p-1'));
    await put(first, person('p-2'));
    expect(await first.removePersonSilently('p-1')).toBe(true);
    expect(await first.removePersonSilently('p-1')).toBe(false);
    expect((await request(`${first.url}/api/persons/p-1`, { headers: bearer(KEY) })).status).toBe(
      404,
    );
    await first.stop();

    const second = await start({ stateFile, key: undefined });
    expect(Object.keys(second.persons())).toEqual(['p-2']);
    // The key saved by the first run still guards the device.
    expect((await request(`${second.url}/api/persons/p-2`, { headers: bearer(KEY) })).status).toBe(
      200,
    );
  });
});

describe('device → central', () => {
  it('sends a heartbeat with its key at start and on its interval', async () => {
    const device = await start({ centralUrl: central.url, heartbeatIntervalMs: 50 });
    const beats = await waitFor('two heartbeats', () => {
      const seen = central.on('/api/device/heartbeat');
      return seen.length >= 2 && seen;
    });
    for (const beat of beats) {
      expect(beat.authorization).toBe(`Bearer ${KEY}`);
      expect(beat.body).toEqual({ sn: 'DEV-1', time: expect.any(String) });
    }
    expect(device.lastHeartbeat()?.status).toBe(200);
  });

  it('stamps heartbeats and events with its own clock, off by clockOffsetMs', async () => {
    const device = await start({ centralUrl: central.url, clockOffsetMs: -3_600_000 });
    const before = Date.now();
    await device.heartbeatNow();
    const [beat] = central.on('/api/device/heartbeat');
    const sent = new Date((beat!.body as { time: string }).time).getTime();
    expect(sent).toBeLessThanOrEqual(Date.now() - 3_600_000);
    expect(sent).toBeGreaterThanOrEqual(before - 3_600_000);
    device.setClockOffset(86_400_000);
    const emitted = await device.emitEvent({ personId: null });
    expect(new Date(emitted.event.time).getTime()).toBeGreaterThanOrEqual(before + 86_400_000);
  });

  it('sends no heartbeat when the interval is 0 until asked', async () => {
    const device = await start({ centralUrl: central.url });
    expect(device.lastHeartbeat()).toBeNull();
    const result = await device.heartbeatNow();
    expect(result?.status).toBe(200);
    expect(central.on('/api/device/heartbeat')).toHaveLength(1);
  });

  it('emits a recognition event with a fresh uuid and a small JPEG snapshot', async () => {
    const device = await start({ centralUrl: central.url });
    const result = await device.emitEvent({ personId: 'p-1', score: 0.93, withSnapshot: true });
    expect(result.status).toBe(202);
    expect(result.body).toEqual({ id: 'rec-1' });
    const [sent] = central.on('/api/recognition/events');
    expect(sent?.authorization).toBe(`Bearer ${KEY}`);
    const event = recognitionEventIn.strict().parse(sent?.body);
    expect(event).toMatchObject({
      eventId: result.eventId,
      sn: 'DEV-1',
      personId: 'p-1',
      score: 0.93,
    });

    const snapshot = Buffer.from(event.snapshot ?? '', 'base64');
    expect(snapshot.byteLength).toBeGreaterThan(0);
    expect(snapshot.byteLength).toBeLessThanOrEqual(MAX_SNAPSHOT_BYTES);
    expect([...snapshot.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...snapshot.subarray(-2)]).toEqual([0xff, 0xd9]);
    const image = jpeg.decode(snapshot, { useTArray: true });
    expect(image.width).toBeGreaterThan(0);

    const stranger = await device.emitEvent({ personId: null, time: '2026-11-22T06:30:00.000Z' });
    expect(stranger.eventId).not.toBe(result.eventId);
    const body = recognitionEventIn.parse(central.on('/api/recognition/events')[1]?.body);
    expect(body).toMatchObject({ personId: null, time: '2026-11-22T06:30:00.000Z' });
    expect(body.snapshot).toBeUndefined();
  });

  it('resends the same event for dedupe checks', async () => {
    const device = await start({ centralUrl: central.url });
    const first = await device.emitEvent({ personId: 'p-1' });
    const again = await device.resendEvent(first.eventId);
    expect(again.eventId).toBe(first.eventId);
    const [one, two] = central.on('/api/recognition/events');
    expect(two?.body).toEqual(one?.body);
    await expect(device.resendEvent('00000000-0000-4000-8000-000000000000')).rejects.toThrow();
  });

  it('reports a central service it cannot reach instead of throwing', async () => {
    const device = await start({ centralUrl: central.url });
    await central.close();
    const result = await device.emitEvent({ personId: 'p-1' });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
