import { randomUUID } from 'node:crypto';
import { deviceWithKey, type PanelEvent } from '@svc/shared';
import { startDevice, startTerminal, type DeviceHandle, type TerminalHandle } from '@svc/sim';
import { signedIn } from './admins.js';
import type { TestServer } from './harness.js';
import type { TestClient } from './http-client.js';

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
  // The route is shared by every organization: only a superadmin sets it.
  const route = await (
    await signedIn(server, 'superadmin')
  ).post('/api/panel/route', { mode: 'local', url: panel.url });
  if (route.status !== 200) throw new Error(`panel route: ${route.status}`);
  const gate = (await simulatedDevice(server, admin)).device;
  return { display: panel.display, shown: panel.shown, gate };
}

/** A display terminal (the local-mode panel receiver) that records every event it shows. */
export async function simulatedDisplay(): Promise<{
  display: TerminalHandle;
  shown: string[];
  /** Deliveries of an event already shown: acknowledged, not shown again (PROTOCOL §4). */
  repeats: string[];
  url: string;
}> {
  const shown: string[] = [];
  const repeats: string[] = [];
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
        if (e.type === 'panel-repeat') repeats.push(e.eventId);
      },
    },
  );
  return { display, shown, repeats, url: `${display.url}/api/recognition` };
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
