import type { ConsoleTerminal } from './api.js';
import {
  createConsoleService,
  MIN_PROBE_INTERVAL_MS,
  type ConsoleServiceDeps,
} from './console-service.js';
import { TerminalDirectory } from './terminal-directory.js';
import { openNodeUdpSocket } from '@svc/shared/udp';
import { FakeClock } from '../testing/fake-clock.js';
import { announce, closeSocket, nextChange, openSender, sendTo } from '../testing/udp.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((fn) => fn()));
});

async function setup(listen = true) {
  const clock = new FakeClock();
  const directory = new TerminalDirectory(
    { openSocket: openNodeUdpSocket, clock },
    { port: 0, timeoutS: 45 },
  );
  if (listen) await directory.start();
  cleanup.push(() => directory.close());
  const sender = await openSender();
  cleanup.push(() => closeSocket(sender));
  const port = directory.status().local?.port ?? 0;
  const probes: (readonly string[])[] = [];
  const spied: ConsoleServiceDeps['directory'] = {
    list: () => directory.list(),
    centrals: () => directory.centrals(),
    dropCounts: () => directory.dropCounts(),
    status: () => directory.status(),
    // Without `listen`, the port stays closed as if another program held it.
    start: () => (listen ? directory.start() : Promise.reject(new Error('EADDRINUSE'))),
    onChange: (listener) => directory.onChange(listener),
    probe: (addresses) => {
      probes.push(addresses ?? []);
      return directory.probe(addresses);
    },
  };
  let addressCalls = 0;
  const service = createConsoleService({
    directory: spied,
    clock,
    probeAddresses: () => {
      addressCalls += 1;
      return ['127.0.0.1'];
    },
  });
  return { clock, directory, sender, port, service, probes, addressCalls: () => addressCalls };
}

describe('createConsoleService', () => {
  it('serves the directory: terminals, centrals, drops and status', async () => {
    const { directory, sender, port, service } = await setup();
    const online = nextChange(directory, 'terminal-online');
    await sendTo(sender, announce({ id: 'DSP-7', kind: 'display', port: 8181 }), port);
    await online;
    const dropped = nextChange(directory, 'dropped');
    await sendTo(sender, '{"svc":"discovery","v":1,"type":"announce","id":"x y"}', port);
    await dropped;

    const terminals = await service.listTerminals();
    expect(terminals).toHaveLength(1);
    expect(terminals[0]).toMatchObject({
      id: 'DSP-7',
      kind: 'display',
      configUrl: 'http://127.0.0.1:8181/api/config',
    });
    expect((await service.getDropCounts()).bad_field).toBe(1);
    expect(await service.listCentrals()).toEqual([]);
    expect(await service.getStatus()).toMatchObject({ listening: true, lastError: null });
  });

  it('pushes the whole list after terminal changes, one list per burst, and stops after unsubscribe', async () => {
    const { clock, directory, sender, port, service } = await setup();
    const pushes: ConsoleTerminal[][] = [];
    let waiting: (() => void) | null = null;
    const nextPush = () => new Promise<void>((resolve) => (waiting = resolve));
    const unsubscribe = service.onTerminalsChanged((terminals) => {
      pushes.push(terminals);
      waiting?.();
    });

    let pushed = nextPush();
    let online = nextChange(directory, 'terminal-online');
    await sendTo(sender, announce({ id: 'B' }), port);
    await online;
    online = nextChange(directory, 'terminal-online');
    await sendTo(sender, announce({ id: 'A' }), port);
    await online;
    // A drop or a central is not a terminal change.
    const dropped = nextChange(directory, 'dropped');
    await sendTo(sender, 'garbage', port);
    await dropped;
    await pushed;
    expect(pushes.map((list) => list.map((terminal) => terminal.id))).toEqual([['A', 'B']]);

    pushed = nextPush();
    clock.advance(46_000);
    await pushed;
    // Gone offline: still listed, marked offline, so the technician sees what went silent.
    expect(pushes.at(-1)?.map((t) => [t.id, t.online])).toEqual([
      ['A', false],
      ['B', false],
    ]);
    const count = pushes.length;

    unsubscribe();
    const other: string[][] = [];
    const otherPushed = new Promise<void>((resolve) => {
      service.onTerminalsChanged((list) => {
        other.push(list.map((t) => t.id));
        resolve();
      });
    });
    await sendTo(sender, announce({ id: 'C' }), port);
    await otherPushed;
    expect(other).toEqual([['A', 'B', 'C']]);
    expect(pushes).toHaveLength(count);
  });

  it('probes the addresses it is given, at most once a second', async () => {
    const { clock, service, probes, addressCalls } = await setup();
    const first = await service.probe();
    expect(first).toEqual({
      sentAt: new Date(clock.now()).toISOString(),
      throttled: false,
      outcomes: [{ address: '127.0.0.1', ok: true }],
      error: null,
    });
    clock.advance(MIN_PROBE_INTERVAL_MS - 1);
    const again = await service.probe();
    expect(again).toEqual({ ...first, throttled: true });
    expect(probes).toHaveLength(1);

    clock.advance(1);
    const later = await service.probe();
    expect(later.throttled).toBe(false);
    expect(later.sentAt).toBe(new Date(clock.now()).toISOString());
    expect(probes).toHaveLength(2);
    expect(addressCalls()).toBe(2);
  });

  it('shares one probe between concurrent calls', async () => {
    const { service, probes } = await setup();
    const [a, b] = await Promise.all([service.probe(), service.probe()]);
    expect(a).toEqual(b);
    expect(probes).toHaveLength(1);
  });

  it('reports, rather than throws, a probe while the port is not open', async () => {
    const { service, probes } = await setup(false);
    const report = await service.probe();
    expect(report.error).toMatch(/^discovery port is not open/);
    expect(report.outcomes).toEqual([]);
    expect(probes).toHaveLength(0);
  });
});
