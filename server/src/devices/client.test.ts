import { mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { deviceWithKey } from '@svc/shared';
import { startDevice, type DeviceHandle } from '@svc/sim';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { devicePerson, rejection } from '../test/device-calls.js';
import { DeviceKeyVault, SECRET_FILE } from './key-vault.js';
import {
  createDeviceClient,
  DeviceKeyUnavailable,
  deviceTarget,
  type DeviceTarget,
} from './service.js';

let serial = 0;

describe.each(DIALECTS)('DeviceClient against the simulator on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let sim: DeviceHandle;
  const client = createDeviceClient({ timeoutMs: 3_000 });

  /** Registers the simulator in the central service and gives it the key. */
  const registerSim = async () => {
    const reply = await admin.post('/api/devices', {
      sn: sim.sn,
      name: 'Simulated gate',
      baseUrl: sim.url,
    });
    expect(reply.status).toBe(201);
    const device = deviceWithKey.parse(reply.body);
    await sim.setConnection({ key: device.key });
    return device;
  };
  const targetOf = async (id: string) =>
    deviceTarget(server.ctx, (await server.ctx.models.Device.findByPk(id))!);

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
  });
  beforeEach(async () => {
    sim = await startDevice({
      sn: `CL-${dialect}-${++serial}`,
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
    });
  });
  afterEach(async () => {
    await sim.stop();
  });

  test('put, get and delete a person with the key the central service kept', async () => {
    const device = await registerSim();
    const target = await targetOf(device.id);
    expect(target).toEqual({ sn: sim.sn, baseUrl: sim.url, key: device.key });

    const body = devicePerson('p-1', 3);
    const expected = { id: 'p-1', version: 3, photoSha256: body.photoSha256 };
    expect(await client.putPerson(target, body)).toEqual(expected);
    expect(await client.putPerson(target, body)).toEqual(expected);
    expect(sim.persons()).toEqual({ 'p-1': expected });
    expect(await client.getPerson(target, 'p-1')).toEqual(expected);

    expect(await client.deletePerson(target, 'p-1')).toBe('deleted');
    expect(await client.deletePerson(target, 'p-1')).toBe('absent');
    expect(await client.getPerson(target, 'p-1')).toBeNull();
    expect(sim.persons()).toEqual({});

    // A base URL with a trailing slash reaches the same paths.
    const slashed = { ...target, baseUrl: `${sim.url}/` };
    expect(await client.putPerson(slashed, devicePerson('p-2'))).toMatchObject({ id: 'p-2' });
  });

  test('a wrong key is reported as 401; after a rotation only the new key works', async () => {
    const device = await registerSim();
    const wrong: DeviceTarget = { sn: sim.sn, baseUrl: sim.url, key: 'B'.repeat(43) };
    for (const call of [
      client.putPerson(wrong, devicePerson('p-1')),
      client.getPerson(wrong, 'p-1'),
      client.deletePerson(wrong, 'p-1'),
    ]) {
      const err = await rejection(call);
      expect([err.failure, err.status, err.retryable]).toEqual(['unauthorized', 401, false]);
      expect(err.message).toContain(sim.sn);
      // The site words it from these (issue 34), never from the English message.
      expect(err.detail).toEqual({
        code: 'key_refused',
        params: { sn: sim.sn, host: new URL(sim.url).host, status: 401 },
      });
    }
    expect(sim.persons()).toEqual({});

    const rotated = await admin.post(`/api/devices/${device.id}/key`);
    const { key } = deviceWithKey.parse(rotated.body);
    const target = await targetOf(device.id);
    expect(target.key).toBe(key);
    // The device still has the old key: the central service's calls now fail with 401 ...
    expect((await rejection(client.putPerson(target, devicePerson('p-1')))).status).toBe(401);
    // ... until the new key is set on it.
    await sim.setConnection({ key });
    expect(await client.putPerson(target, devicePerson('p-1'))).toMatchObject({ id: 'p-1' });
  });

  test('failures: unreachable device, device errors, unusable ids and bad answers', async () => {
    const device = await registerSim();
    const target = await targetOf(device.id);

    await sim.setFaults({ status500: true });
    const failed = await rejection(client.getPerson(target, 'p-1'));
    expect([failed.failure, failed.status, failed.retryable]).toEqual(['http_status', 500, true]);
    expect(failed.detail).toEqual({
      code: 'http_status_code',
      params: { sn: sim.sn, status: 500, deviceCode: 'internal_error' },
    });
    await sim.setFaults({});

    const mismatch = await rejection(
      client.putPerson(target, { ...devicePerson('p-1'), photoSha256: 'a'.repeat(64) }),
    );
    expect([mismatch.failure, mismatch.status, mismatch.retryable]).toEqual([
      'http_status',
      400,
      false,
    ]);
    expect(mismatch.message).toContain('photo_hash_mismatch');

    for (const id of ['..', '.', 'a/b', '', 'x'.repeat(65)]) {
      const err = await rejection(client.getPerson(target, id));
      expect(err.failure).toBe('invalid_request');
      expect(err.detail).toEqual({ code: 'bad_person_id', params: { id: id.slice(0, 80) } });
    }

    // Something on the port that is not a device: a redirect and a non-JSON answer.
    const odd: Server = createServer((req, res) => {
      if (req.url?.endsWith('/redirect')) {
        res.writeHead(302, { location: 'http://192.0.2.1/steal' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      }
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
      const strange = { sn: 'ODD', baseUrl: base, key: 'C'.repeat(43) };
      const unread = await rejection(client.getPerson(strange, 'p-1'));
      expect([unread.failure, unread.detail]).toEqual([
        'bad_answer',
        { code: 'unreadable_state', params: { sn: 'ODD' } },
      ]);
      const moved = await rejection(client.getPerson(strange, 'redirect'));
      expect([moved.failure, moved.detail]).toEqual([
        'bad_answer',
        { code: 'redirect', params: { sn: 'ODD', host: new URL(base).host } },
      ]);
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }

    await sim.stop();
    // The first call may still meet the pooled keep-alive socket the device just closed.
    for (const expected of [/connection (closed|refused)/, /connection refused/]) {
      const down = await rejection(client.getPerson(target, 'p-1'));
      expect([down.failure, down.retryable]).toEqual(['unreachable', true]);
      expect(down.message).toMatch(expected);
      expect(down.detail.code).toMatch(/^connection_(closed|refused)$/);
      expect(down.detail.params).toEqual({ sn: sim.sn, host: new URL(sim.url).host });
    }
    // afterEach stops it again: harmless.
  });

  test('the outbound key is sealed with a 0600 secret on the data volume and checked against the hash', async () => {
    const device = await registerSim();
    const secretFile = path.join(suite.scratch.dataDir, SECRET_FILE);
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);

    // A stale sealed copy (the hash moved on without it) is refused, not sent.
    await server.ctx.models.Device.update(
      { keyHash: 'f'.repeat(64) },
      { where: { id: device.id } },
    );
    await expect(targetOf(device.id)).rejects.toBeInstanceOf(DeviceKeyUnavailable);

    // Another secret (a replaced data volume) cannot open the sealed key.
    const otherDir = path.join(suite.scratch.dataDir, 'elsewhere');
    await mkdir(otherDir);
    await writeFile(
      path.join(otherDir, SECRET_FILE),
      `${Buffer.alloc(32, 7).toString('base64')}\n`,
    );
    const foreignVault = new DeviceKeyVault({
      models: server.ctx.models,
      clock: server.ctx.clock,
      dataDir: otherDir,
    });
    await expect(foreignVault.open(device.id)).rejects.toThrow(/rotate the device key/);
    await expect(foreignVault.open('no-such-device')).rejects.toBeInstanceOf(DeviceKeyUnavailable);

    // A rotation seals a fresh copy that matches again.
    const rotated = deviceWithKey.parse((await admin.post(`/api/devices/${device.id}/key`)).body);
    expect((await targetOf(device.id)).key).toBe(rotated.key);
  });
});
