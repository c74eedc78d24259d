import { randomUUID } from 'node:crypto';
import { deviceWithKey, type PanelEvent } from '@svc/shared';
import { startDevice, startTerminal, type DeviceHandle, type TerminalHandle } from '@svc/sim';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';

/** Fixtures for the recognition suites: generated names only, loopback sockets only. */

let serial = 0;
const tag = () => `${++serial}-${randomUUID().slice(0, 6)}`;

export async function createSpace(admin: TestClient, name = `Sample hall ${tag()}`) {
  const reply = await admin.post('/api/spaces', { name });
  if (reply.status !== 201) throw new Error(`space: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { id: string; name: string };
}

export async function createPerson(admin: TestClient, name = `Sample Person ${tag()}`) {
  const reply = await admin.post('/api/people', { name, idNumber: `G${tag()}` });
  if (reply.status !== 201)
    throw new Error(`person: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { id: string; name: string };
}

/** Registers a device through the API (for its key) and starts its simulator. */
export async function simulatedDevice(
  server: TestServer,
  admin: TestClient,
  opts: { spaceId?: string; name?: string } = {},
): Promise<{ device: DeviceHandle; id: string; sn: string; name: string; key: string }> {
  const sn = `REC-${tag()}`;
  const reply = await admin.post('/api/devices', {
    sn,
    name: opts.name ?? `Sample gate ${sn}`,
    baseUrl: 'http://127.0.0.1:9',
    ...(opts.spaceId && { spaceId: opts.spaceId }),
  });
  if (reply.status !== 201)
    throw new Error(`device: ${reply.status} ${JSON.stringify(reply.body)}`);
  const registered = deviceWithKey.parse(reply.body);
  const device = await startDevice({
    sn,
    key: registered.key,
    bindAddress: '127.0.0.1',
    httpPort: 0,
    centralUrl: server.url,
    heartbeatIntervalMs: 0,
  });
  return { device, id: registered.id, sn, name: registered.name, key: registered.key };
}

/** A simulated display made the panel route (local mode), and a registered device that posts. */
export async function panelLoop(server: TestServer, admin: TestClient) {
  const panel = await simulatedDisplay();
  await admin.post('/api/panel/route', { mode: 'local', url: panel.url });
  const gate = (await simulatedDevice(server, admin)).device;
  return { display: panel.display, shown: panel.shown, gate };
}

/** A display terminal (the local-mode panel receiver) that records every event it shows. */
export async function simulatedDisplay(): Promise<{
  display: TerminalHandle;
  shown: string[];
  url: string;
}> {
  const shown: string[] = [];
  const display = await startTerminal(
    {
      id: `DSP-${tag()}`,
      kind: 'display',
      bindAddress: '127.0.0.1',
      httpPort: 0,
      // Announces go to a port nobody listens on: this suite does not test discovery.
      discoveryPort: 9,
      broadcastAddresses: ['127.0.0.1'],
      announceIntervalMs: 0,
      checkinIntervalMs: 0,
      listenForProbes: false,
    },
    {
      onEvent: (e) => {
        if (e.type === 'panel-event') shown.push(e.eventId);
      },
    },
  );
  return { display, shown, url: `${display.url}/api/recognition` };
}

export async function displayStatus(
  display: TerminalHandle,
): Promise<{ lastEvent: PanelEvent | null }> {
  const res = await fetch(`${display.url}/api/status`);
  return (await res.json()) as { lastEvent: PanelEvent | null };
}

/** POSTs an event body as a device would (for cases the simulator will not produce). */
export function postEvent(server: TestServer, key: string, body: unknown) {
  return fetch(`${server.url}/api/recognition/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
}

export async function waitUntil<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
