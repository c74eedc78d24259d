import type { TerminalConfig } from '@svc/shared';
import type { TerminalClient } from '../clients/terminal-client.js';
import { systemClock } from '../clock.js';
import {
  centralNode,
  heardTerminal,
  startCentralStub,
  type CentralStub,
} from '../../testing/central-stub.js';
import { Workbench, type PushProgress } from '../workbench.js';

/**
 * A push to several terminals shows, while it runs, where each terminal is (saving, reading
 * back, waiting for its check-in, done), not nothing until the last one ends.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The central service's node list: ENR-FAST checks in a moment after its push, ENR-SLOW never. */
async function stubCentral(): Promise<CentralStub & { pushedAt: Map<string, number> }> {
  const pushedAt = new Map<string, number>();
  const stub = await startCentralStub(({ url }) => {
    if (url === '/api/heartbeat') return undefined;
    const now = new Date().toISOString();
    return {
      status: 200,
      body: ['ENR-FAST', 'ENR-SLOW'].map((id) =>
        centralNode(id, {
          address: '127.0.0.1',
          port: 9,
          configUrl: 'http://127.0.0.1:9/api/config',
          lastSeen: now,
          // A moment after its push (a check-in the console's next look finds).
          lastCheckin:
            id === 'ENR-FAST' && Date.now() - (pushedAt.get(id) ?? Infinity) > 700 ? now : null,
        }),
      ),
    };
  });
  return { ...stub, pushedAt };
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

describe('a running push', () => {
  let central: Awaited<ReturnType<typeof stubCentral>>;
  let url: string;
  beforeAll(async () => {
    central = await stubCentral();
    url = central.url;
  });
  afterAll(() => central.close());

  it('says, terminal by terminal, which step each is at until all are done', async () => {
    const wb = new Workbench({
      clock: systemClock,
      terminalClient: slowTerminals(central.pushedAt, url),
      terminals: () => [heardTerminal('ENR-FAST', 9), heardTerminal('ENR-SLOW', 10)],
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
