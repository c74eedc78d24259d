import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDevice, type DeviceHandle } from '@svc/sim';
import {
  createDeviceClient,
  type DeviceCallError,
  type DeviceTarget,
} from '../../devices/client.js';
import { devicePerson, rejection } from '../../test/device-calls.js';
import { keepAliveFetch } from './device-fetch.js';

// The push worker's transport must answer exactly as the client's default (the global fetch)
// does: client.test.ts covers that one against the service; this covers the worker's.
const KEY = 'K'.repeat(43);

async function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const baseOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
const close = (s: Server) =>
  new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });

describe('the push worker transport (keepAliveFetch)', () => {
  const transport = keepAliveFetch({ connections: 2 });
  const client = createDeviceClient({ fetch: transport, timeoutMs: 1_000 });
  let sim: DeviceHandle;
  let target: DeviceTarget;

  beforeEach(async () => {
    sim = await startDevice({ sn: 'FETCH-1', key: KEY, bindAddress: '127.0.0.1' });
    target = { sn: sim.sn, baseUrl: sim.url, key: KEY };
  });
  afterEach(() => sim.stop());
  afterAll(() => transport.close());

  test('put, get and delete over kept-alive connections, many calls at once', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) => devicePerson(`p-${i}`, i + 1));
    const answers = await Promise.all(bodies.map((b) => client.putPerson(target, b)));
    expect(answers).toEqual(
      bodies.map((b) => ({ id: b.id, version: b.version, photoSha256: b.photoSha256 })),
    );
    expect(Object.keys(sim.persons())).toHaveLength(40);
    // The same body object again (its bytes are made once) reaches the device unchanged.
    expect(await client.putPerson(target, bodies[3]!)).toEqual(answers[3]);
    expect(await client.getPerson(target, 'p-3')).toEqual(answers[3]);
    expect(await client.deletePerson(target, 'p-3')).toBe('deleted');
    expect(await client.deletePerson(target, 'p-3')).toBe('absent');
    expect(await client.getPerson(target, 'p-3')).toBeNull();
  });

  test('a wrong key, a device error and a refused body are told apart', async () => {
    const wrong = await rejection(
      client.putPerson({ ...target, key: 'B'.repeat(43) }, devicePerson('a')),
    );
    expect([wrong.failure, wrong.status, wrong.retryable]).toEqual(['unauthorized', 401, false]);

    const mismatch = await rejection(
      client.putPerson(target, { ...devicePerson('a'), photoSha256: 'a'.repeat(64) }),
    );
    expect([mismatch.failure, mismatch.status]).toEqual(['http_status', 400]);
    expect(mismatch.message).toContain('photo_hash_mismatch');

    await sim.setFaults({ status500: true });
    const failed = await rejection(client.putPerson(target, devicePerson('a')));
    expect([failed.failure, failed.status, failed.retryable]).toEqual(['http_status', 500, true]);
    expect(sim.persons()).toEqual({});
  });

  test('a redirect is refused and not followed; a non-JSON answer is a bad answer', async () => {
    let followed = 0;
    const elsewhere = await listen((_req, res) => {
      followed++;
      res.end('{}');
    });
    const odd = await listen((req, res) => {
      if (req.url?.endsWith('/redirect')) {
        res.writeHead(307, { location: `${baseOf(elsewhere)}/steal` }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    try {
      const strange = { sn: 'ODD', baseUrl: baseOf(odd), key: KEY };
      const redirect = await rejection(client.getPerson(strange, 'redirect'));
      expect(redirect.failure).toBe('bad_answer');
      expect(redirect.message).toMatch(/redirect/);
      expect((await rejection(client.getPerson(strange, 'p-1'))).failure).toBe('bad_answer');
      expect(followed).toBe(0);
    } finally {
      await Promise.all([close(odd), close(elsewhere)]);
    }
  });

  test('a device that does not answer in time, drops the connection or is gone', async () => {
    await sim.setFaults({ delayMs: 5_000 });
    const slow = await rejection(client.putPerson(target, devicePerson('a')));
    expect([slow.failure, slow.retryable]).toEqual(['unreachable', true]);
    expect(slow.message).toBe(
      `no answer from device FETCH-1 at ${new URL(sim.url).host} within 1 s`,
    );

    await sim.setFaults({ dropRate: 1 });
    const dropped = await rejection(client.putPerson(target, devicePerson('a')));
    expect([dropped.failure, dropped.retryable]).toEqual(['unreachable', true]);
    expect(dropped.message).toMatch(/^connection (closed without an answer|reset) at device/);

    await sim.setFaults({});
    expect(await client.putPerson(target, devicePerson('a'))).toMatchObject({ id: 'a' });
    await sim.stop();
    // The first call may still meet the pooled keep-alive socket the device just closed.
    for (const expected of [/connection (closed|refused|reset)/, /connection refused/]) {
      const down = await rejection(client.getPerson(target, 'a'));
      expect([down.failure, down.retryable]).toEqual(['unreachable', true]);
      expect(down.message).toMatch(expected);
    }
  });

  test('a call waiting for a free connection has its time limit from when it was made', async () => {
    // Two connections, answers after 400 ms: eight calls take four rounds (400 … 1,600 ms).
    // The first round fits in the 1 s limit; the last cannot, as its clock started with the call.
    await sim.setFaults({ delayMs: 400 });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => client.putPerson(target, devicePerson(`q-${i}`))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const late = results.filter(
      (r) =>
        r.status === 'rejected' && (r.reason as DeviceCallError).message.includes('within 1 s'),
    ).length;
    expect(ok + late).toBe(8);
    expect(ok).toBeGreaterThanOrEqual(2);
    expect(late).toBeGreaterThanOrEqual(2);
    expect(results.slice(-2).every((r) => r.status === 'rejected')).toBe(true);
  });
});
