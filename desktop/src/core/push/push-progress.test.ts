import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TerminalConfig } from '@svc/shared';
import type { TerminalClient } from '../clients/terminal-client.js';
import { systemClock } from '../clock.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { Workbench, type PushProgress } from '../workbench.js';

/**
 * A push to several terminals shows, while it runs, where each terminal is (saving, reading
 * back, waiting for its check-in, done), not nothing until the last one ends.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The central service's node list: ENR-FAST checks in a moment after its push, ENR-SLOW never. */
function stubCentral(): { server: Server; pushedAt: Map<string, number> } {
  const pushedAt = new Map<string, number>();
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const now = new Date().toISOString();
    if (req.url === '/api/heartbeat') {
      return res.end(
        JSON.stringify({
          state: 1,
          service: 'svc',
          time: now,
          responseTimeMs: 1,
          version: '0.1.0',
          uptimeSeconds: 1,
          database: { state: 'up', dialect: 'sqlite' },
          workers: {},
          warnings: [],
        }),
      );
    }
    res.end(
      JSON.stringify(
        ['ENR-FAST', 'ENR-SLOW'].map((id) => ({
          id,
          kind: 'enrollment',
          name: id,
          model: 'm',
          version: '1',
          address: '127.0.0.1',
          port: 9,
          configUrl: 'http://127.0.0.1:9/api/config',
          central: '',
          lastSeen: now,
          // A moment after its push (a check-in the console's next look finds).
          lastCheckin:
            id === 'ENR-FAST' && Date.now() - (pushedAt.get(id) ?? Infinity) > 700 ? now : null,
          online: true,
          conflict: null,
        })),
      ),
    );
  });
  return { server, pushedAt };
}

/** Terminals that take their time to save and to answer a read. */
function slowTerminals(pushedAt: Map<string, number>, centralUrl: string): TerminalClient {
  const config = (): TerminalConfig =>
    ({ centralUrl, panelUrl: '', updatedAt: new Date().toISOString() }) as TerminalConfig;
  return {
    async push(base) {
      await sleep(base.endsWith(':9') ? 300 : 600);
      pushedAt.set(base.endsWith(':9') ? 'ENR-FAST' : 'ENR-SLOW', Date.now());
      return config();
    },
    async read() {
      await sleep(300);
      return config();
    },
    status: () => Promise.reject(new Error('not a display')),
  };
}

const entry = (id: string, port: number): TerminalEntry => ({
  id,
  kind: 'enrollment',
  name: id,
  model: null,
  version: null,
  address: '127.0.0.1',
  port,
  sourcePort: 1,
  configUrl: `http://127.0.0.1:${port}/api/config`,
  central: '',
  firstSeen: '2026-11-28T00:00:00.000Z',
  lastSeen: '2026-11-28T00:00:00.000Z',
  announces: 1,
  conflict: null,
});

describe('a running push', () => {
  let central: ReturnType<typeof stubCentral>;
  let url: string;
  beforeAll(async () => {
    central = stubCentral();
    await new Promise<void>((resolve) => central.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(central.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => central.server.close(resolve)));

  it('says, terminal by terminal, which step each is at until all are done', async () => {
    const wb = new Workbench({
      clock: systemClock,
      terminalClient: slowTerminals(central.pushedAt, url),
      terminals: () => [entry('ENR-FAST', 9), entry('ENR-SLOW', 10)],
      release: '0.1.0',
      checkinTimeoutMs: 1_500,
    });
    await wb.setCentral(url);
    expect(wb.pushProgress()).toEqual([]);
    const running = wb.push({ ids: ['ENR-FAST', 'ENR-SLOW'], centralUrl: url, direct: true });
    const seen: PushProgress[][] = [];
    let finished = false;
    void running.finally(() => (finished = true));
    while (!finished) {
      seen.push(wb.pushProgress());
      await sleep(25);
    }
    const results = await running;
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['ENR-FAST', true],
      ['ENR-SLOW', false],
    ]);
    // Each terminal went through every step, in order, and was shown at each.
    for (const id of ['ENR-FAST', 'ENR-SLOW']) {
      const steps = seen
        .map((snapshot) => snapshot.find((p) => p.id === id)?.step)
        .filter((s, i, all) => s !== undefined && s !== all[i - 1]);
      // (The last to end is "done" only as the batch ends: its results take the place.)
      expect([id, steps.slice(0, 3)]).toEqual([id, ['saving', 'readingBack', 'checkingIn']]);
    }
    // One done while the other still waits for its check-in: the batch is not one frozen wait.
    const mixed = seen.find(
      (s) =>
        s.find((p) => p.id === 'ENR-FAST')?.step === 'done' &&
        s.find((p) => p.id === 'ENR-SLOW')?.step === 'checkingIn',
    );
    expect(mixed?.find((p) => p.id === 'ENR-FAST')).toMatchObject({ ok: true, direct: true });
    expect(mixed?.find((p) => p.id === 'ENR-SLOW')).toMatchObject({ checkinTimeoutS: 2 });
    // Nothing is left once the push ended.
    expect(wb.pushProgress()).toEqual([]);
  });
});
