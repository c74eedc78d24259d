import { randomUUID } from 'node:crypto';
import type { PanelEvent, PanelRoute, PanelTestResult } from '@svc/shared';
import { pipelinedPanelTransport } from '../recognition/panel-outbox/panel-client.js';

const TEST_TIMEOUT_MS = 5_000;

/** The SN and name a panel shows for a connection test (no device has them). */
export const TEST_DEVICE = { sn: 'SVC-CONNECTION-TEST', name: 'Connection test from svc' };

/**
 * Sends one test event (PROTOCOL §4 body: no person, the test device) to the route's URL on a
 * connection of its own, and says whether the panel answered 2xx or why not.
 */
export async function testPanelConnection(route: PanelRoute, now: Date): Promise<PanelTestResult> {
  if (route.url === '') {
    return { ok: false, url: '', reason: 'No panel URL is set: recognitions are not sent.' };
  }
  const event: PanelEvent = {
    eventId: `test-${randomUUID()}`,
    time: now.toISOString(),
    score: 1,
    person: null,
    device: TEST_DEVICE,
    space: null,
  };
  const transport = pipelinedPanelTransport({ timeoutMs: TEST_TIMEOUT_MS });
  const started = performance.now();
  try {
    const [failure] = await transport.post(route.url, [JSON.stringify(event)]);
    if (failure !== undefined) return { ok: false, url: route.url, reason: failure };
    return { ok: true, url: route.url, ms: Math.round(performance.now() - started) };
  } finally {
    transport.close();
  }
}
