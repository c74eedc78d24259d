import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { errorBody, recognitionEventIn } from '@svc/shared';
import { startControlServer } from '../cli/control-server.js';
import { startDevice } from '../device/device.js';
import type { DeviceHandle } from '../device/device.js';
import { listenNodeHttp } from '../infra/http-listener.js';
import type { HttpListener } from '../infra/http-listener.js';
import { startTerminal } from '../terminal/terminal.js';
import type { TerminalHandle } from '../terminal/terminal.js';
import { startCentralStub } from '../test/central-stub.js';
import { bearer, request } from '../test/http-client.js';
import { openListener } from '../test/udp.js';
import { controlTargetOf } from './node-server.js';

const KEY = 'device-key-for-control';
let central: Awaited<ReturnType<typeof startCentralStub>>;
let discovery: Awaited<ReturnType<typeof openListener>>;
let device: DeviceHandle;
let terminal: TerminalHandle;
let control: HttpListener | undefined;

beforeEach(async () => {
  central = await startCentralStub((req) =>
    req.path === '/api/recognition/events'
      ? { status: 202, body: { id: 'rec-9' } }
      : { status: 200, body: { serverTime: new Date().toISOString() } },
  );
  discovery = await openListener();
  device = await startDevice({ sn: 'DEV-C', bindAddress: '127.0.0.1', heartbeatIntervalMs: 0 });
  terminal = await startTerminal({
    id: 'DSP-C',
    kind: 'display',
    bindAddress: '127.0.0.1',
    httpPort: 0,
    discoveryPort: discovery.port,
    broadcastAddresses: ['127.255.255.255'],
    announceIntervalMs: 0,
  });
});
afterEach(async () => {
  await control?.close();
  control = undefined;
  await Promise.all([device.stop(), terminal.stop()]);
  await Promise.all([central.close(), discovery.close()]);
});

const post = (url: string, body: unknown = {}) => request(url, { method: 'POST', body });

describe('/_sim control endpoints (simulator only)', () => {
  it('lets a device registered after it started get its key and central URL', async () => {
    const emitBefore = await post(`${device.url}/_sim/emit`, { personId: 'p-1' });
    expect(emitBefore.status).toBe(409);
    expect(errorBody.parse(emitBefore.json).error.code).toBe('no_central');

    const set = await post(`${device.url}/_sim/connection`, { key: KEY, centralUrl: central.url });
    expect(set.json).toEqual({ centralUrl: central.url, hasKey: true });
    const state = await request(`${device.url}/_sim/state`);
    expect(state.text).not.toContain(KEY);
    expect(state.json).toMatchObject({ node: 'device', sn: 'DEV-C', hasKey: true, persons: {} });

    const beat = await post(`${device.url}/_sim/heartbeat`);
    expect(beat.json).toMatchObject({ status: 200 });
    expect(central.on('/api/device/heartbeat')[0]?.authorization).toBe(`Bearer ${KEY}`);
  });

  it('emits, resends and loses through HTTP', async () => {
    await device.setConnection({ key: KEY, centralUrl: central.url });
    const emitted = await post(`${device.url}/_sim/emit`, { personId: 'p-7', withSnapshot: true });
    expect(emitted.status).toBe(200);
    const result = emitted.json as {
      eventId: string;
      status: number;
      event: { snapshotBytes: number };
    };
    expect(result.status).toBe(202);
    expect(result.event.snapshotBytes).toBeGreaterThan(0);
    const sent = recognitionEventIn.parse(central.on('/api/recognition/events')[0]?.body);
    expect(sent.eventId).toBe(result.eventId);
    expect(sent.personId).toBe('p-7');

    const resent = await post(`${device.url}/_sim/resend/${result.eventId}`);
    expect(resent.json).toMatchObject({ eventId: result.eventId, status: 202 });
    expect(central.on('/api/recognition/events')[1]?.body).toEqual(
      central.on('/api/recognition/events')[0]?.body,
    );
    expect((await post(`${device.url}/_sim/resend/unknown`)).status).toBe(404);
    expect((await post(`${device.url}/_sim/emit`, { personId: 5 })).status).toBe(400);

    const photo = Buffer.from('x');
    await request(`${device.url}/api/persons/p-7`, {
      method: 'PUT',
      headers: bearer(KEY),
      body: {
        id: 'p-7',
        name: 'P',
        photo: photo.toString('base64'),
        photoSha256: createHash('sha256').update(photo).digest('hex'),
        version: 1,
      },
    });
    expect((await post(`${device.url}/_sim/lose/p-7`)).json).toEqual({ id: 'p-7', lost: true });
    expect((await post(`${device.url}/_sim/lose/p-7`)).status).toBe(404);
    expect(device.persons()).toEqual({});
  });

  it('shows a terminal its last event and accepts faults', async () => {
    const state = await request(`${terminal.url}/_sim/state`);
    expect(state.json).toMatchObject({
      node: 'terminal',
      id: 'DSP-C',
      lastEvent: null,
      lastCheckin: null,
    });
    const faults = await post(`${terminal.url}/_sim/faults`, { delayMs: 1 });
    expect(faults.json).toEqual({ delayMs: 1 });
    expect((await request(`${terminal.url}/_sim/faults`)).json).toEqual({ delayMs: 1 });
    expect((await request(`${terminal.url}/_sim/nothing`)).status).toBe(404);
  });

  it('are reachable on the CLI control port even while a node refuses connections', async () => {
    const nodes = [device, terminal].map((node) => ({
      kind: 'sn' in node ? 'device' : node.kind,
      id: 'sn' in node ? node.sn : node.id,
      url: node.url,
      target: controlTargetOf(node)!,
    }));
    control = await startControlServer(listenNodeHttp, { host: '127.0.0.1', port: 0 }, nodes);
    const base = `http://127.0.0.1:${control.port}/_sim/nodes`;
    expect((await request(base)).json).toEqual([
      { kind: 'device', id: 'DEV-C', url: device.url },
      { kind: 'display', id: 'DSP-C', url: terminal.url },
    ]);
    await post(`${base}/DSP-C/faults`, { refuse: true });
    await expect(request(`${terminal.url}/api/config`)).rejects.toThrow(/ECONNREFUSED/);
    expect((await request(`${base}/DSP-C/state`)).json).toMatchObject({ faults: { refuse: true } });
    await post(`${base}/DSP-C/faults`, {});
    expect((await request(`${terminal.url}/api/config`)).status).toBe(200);
    expect((await request(`${base}/NOPE/state`)).status).toBe(404);
  });
});
