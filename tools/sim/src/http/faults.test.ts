import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { errorBody, terminalConfig } from '@svc/shared';
import { startDevice } from '../device/device.js';
import type { DeviceHandle } from '../device/device.js';
import { startTerminal } from '../terminal/terminal.js';
import type { TerminalHandle } from '../terminal/terminal.js';
import { bearer, request } from '../test/http-client.js';
import { openListener } from '../test/udp.js';
import type { Faults } from './faults.js';

let discovery: Awaited<ReturnType<typeof openListener>>;
const running: (TerminalHandle | DeviceHandle)[] = [];

beforeEach(async () => {
  discovery = await openListener();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
  await discovery.close();
});

async function terminal(faults: Faults = {}): Promise<TerminalHandle> {
  const node = await startTerminal({
    id: 'ENR-FAULT',
    kind: 'enrollment',
    bindAddress: '127.0.0.1',
    httpPort: 0,
    discoveryPort: discovery.port,
    broadcastAddresses: ['127.255.255.255'],
    announceIntervalMs: 0,
    faults,
  });
  running.push(node);
  return node;
}

const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException).code;

describe('faults seen by a client', () => {
  it('refuse: connections are refused until the fault is cleared, then the same port answers', async () => {
    const node = await terminal({ refuse: true });
    const url = `${node.url}/api/config`;
    await expect(request(url).catch(errorCode)).resolves.toBe('ECONNREFUSED');
    await node.setFaults({});
    expect((await request(url)).status).toBe(200);
    await node.setFaults({ refuse: true });
    await expect(request(url).catch(errorCode)).resolves.toBe('ECONNREFUSED');
    await node.setFaults({ refuse: false });
    expect((await request(url)).status).toBe(200);
  });

  it('status500: every protocol endpoint answers 500 with the §0 body', async () => {
    const node = await terminal({ status500: true });
    const answer = await request(`${node.url}/api/config`);
    expect(answer.status).toBe(500);
    expect(errorBody.parse(answer.json).error.code).toBe('internal_error');
    const post = await request(`${node.url}/api/config`, {
      method: 'POST',
      body: { centralUrl: 'http://127.0.0.1:8000' },
    });
    expect(post.status).toBe(500);
    expect(node.config().centralUrl).toBe('');
    // The simulator's own endpoints stay usable, so a test can clear the fault.
    expect((await request(`${node.url}/_sim/state`)).status).toBe(200);
  });

  it('delayMs: the answer comes no sooner than the delay', async () => {
    const node = await terminal({ delayMs: 150 });
    const started = performance.now();
    const answer = await request(`${node.url}/api/config`);
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('dropRate 1: the connection is closed without an answer', async () => {
    const node = await terminal({ dropRate: 1 });
    await expect(request(`${node.url}/api/config`)).rejects.toThrow('socket hang up');
    await node.setFaults({ dropRate: 0 });
    expect((await request(`${node.url}/api/config`)).status).toBe(200);
  });

  it('saveDifferent: the saved central URL differs from the one pushed', async () => {
    const node = await terminal({ saveDifferent: true });
    const pushed = 'http://127.0.0.1:8000';
    const saved = await request(`${node.url}/api/config`, {
      method: 'POST',
      body: { centralUrl: pushed },
    });
    expect(saved.status).toBe(200);
    const config = terminalConfig.parse(saved.json);
    expect(config.centralUrl).not.toBe(pushed);
    const readBack = await request(`${node.url}/api/config`);
    expect(readBack.json).toEqual(config);
  });

  it('redirectTo: every protocol endpoint answers 307 to that URL', async () => {
    const node = await terminal({ redirectTo: 'http://127.0.0.1:9/elsewhere' });
    const answer = await request(`${node.url}/api/config`);
    expect(answer.status).toBe(307);
    expect(answer.headers.location).toBe('http://127.0.0.1:9/elsewhere');
  });

  it('answerBytes: the answer is that many bytes, without a declared length', async () => {
    const node = await terminal({ answerBytes: 200_000 });
    const answer = await request(`${node.url}/api/config`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBeUndefined();
    expect(Buffer.byteLength(answer.text)).toBe(200_000);
  });

  it('are set and read through POST /_sim/faults, and invalid ones are refused', async () => {
    const node = await terminal();
    const set = await request(`${node.url}/_sim/faults`, {
      method: 'POST',
      body: { status500: true },
    });
    expect(set.json).toEqual({ status500: true });
    expect((await request(`${node.url}/api/config`)).status).toBe(500);
    const bad = await request(`${node.url}/_sim/faults`, { method: 'POST', body: { dropRate: 2 } });
    expect(bad.status).toBe(400);
    expect(errorBody.parse(bad.json).error.fields).toHaveProperty('dropRate');
    await request(`${node.url}/_sim/faults`, { method: 'POST', body: {} });
    expect((await request(`${node.url}/api/config`)).status).toBe(200);
    expect(node.faults()).toEqual({});
  });

  it('apply to devices too', async () => {
    const device = await startDevice({
      sn: 'DEV-F',
      key: 'k',
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
    });
    running.push(device);
    const url = `${device.url}/api/persons/p-1`;
    await device.setFaults({ status500: true });
    expect((await request(url, { headers: bearer('k') })).status).toBe(500);
    await device.setFaults({ refuse: true });
    await expect(request(url).catch(errorCode)).resolves.toBe('ECONNREFUSED');
    await device.setFaults({});
    expect((await request(url, { headers: bearer('k') })).status).toBe(404);
  });

  it('saveDifferent on a device: the stored photo hash differs from the pushed one', async () => {
    const device = await startDevice({
      sn: 'DEV-D',
      key: 'k',
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
      faults: { saveDifferent: true },
    });
    running.push(device);
    const photo = Buffer.from('photo');
    const photoSha256 = createHash('sha256').update(photo).digest('hex');
    const body = { id: 'p-1', name: 'P', photo: photo.toString('base64'), photoSha256, version: 1 };
    const put = await request(`${device.url}/api/persons/p-1`, {
      method: 'PUT',
      body,
      headers: bearer('k'),
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ id: 'p-1', version: 1 });
    expect((put.json as { photoSha256: string }).photoSha256).not.toBe(photoSha256);
    expect(device.persons()['p-1']?.photoSha256).not.toBe(photoSha256);
  });
});
