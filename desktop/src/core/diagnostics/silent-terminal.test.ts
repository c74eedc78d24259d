import dgram from 'node:dgram';
import { createConsoleService } from '../console-service.js';
import { TerminalDirectory } from '../terminal-directory.js';
import { FakeClock } from '../../testing/fake-clock.js';
import { announce, closeSocket, holdUdpPort, nextChange, sendTo } from '../../testing/udp.js';
import { openNodeUdpSocket } from '@svc/shared/udp';
import { askManagementPorts } from './management-port.js';
import { closedPort } from '../../testing/central-process.js';
import { loopbackTerminal } from '../../testing/sim.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function senderOn(address: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: 'udp4' });
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  cleanups.push(() => closeSocket(socket));
  return socket;
}

async function listeningDirectory(clock = new FakeClock()) {
  const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port: 0 });
  await directory.start();
  cleanups.push(() => directory.close());
  return { directory, port: directory.status().local!.port, clock };
}

describe('a silent terminal on this laptop’s own subnet', () => {
  it('says no announce came from it, asks its management port and says what the answer means', async () => {
    const terminal = await loopbackTerminal(await closedPort(), 'ENR-MUTE', 'enrollment', {
      announceIntervalMs: 0,
      faults: { mute: true },
    });
    cleanups.push(() => terminal.stop());
    const mgmt = Number(new URL(terminal.url).port);
    const nothing = await closedPort();
    const { directory } = await listeningDirectory();
    const service = createConsoleService({
      directory,
      askPorts: (address) => askManagementPorts(address, { ports: [mgmt, nothing] }),
    });
    const report = await service.diagnose('127.0.0.1');
    const finding = report.findings.find((f) => f.code === 'not_heard');
    expect(finding?.title).toBe('No announce came from 127.0.0.1');
    expect(finding?.facts).toContain(`management port ${mgmt}: a terminal, central address none`);
    expect(finding?.facts).toContain(`management port ${nothing}: connection refused`);
    expect(finding?.advice.join('\n')).toMatch(
      /a terminal runs there, but its announces do not reach this laptop/,
    );
  });

  it('a refused port means nothing listens there: said in words', async () => {
    const nothing = await closedPort();
    const [answer] = await askManagementPorts('127.0.0.1', { ports: [nothing] });
    expect(answer).toEqual({ port: nothing, kind: 'refused', detail: 'connection refused' });
  });

  it('ports that answer alike get one piece of advice, not the same one twice', async () => {
    const [a, b] = [await closedPort(), await closedPort()];
    const { directory } = await listeningDirectory();
    const service = createConsoleService({
      directory,
      askPorts: (address) => askManagementPorts(address, { ports: [a, b] }),
    });
    const finding = (await service.diagnose('127.0.0.1')).findings.find(
      (f) => f.code === 'not_heard',
    );
    const refused = finding?.advice.filter((line) => line.includes('no terminal listens'));
    expect(refused).toEqual([
      `Ports ${a}, ${b}: a host answers at that address, but no terminal listens on this port: the terminal software may not run, or it uses another port.`,
    ]);
  });
});

describe('one terminal id announced from two addresses', () => {
  it('keeps the first address, shows the other as a conflict in the list and in diagnostics', async () => {
    const { directory, port } = await listeningDirectory();
    const first = await senderOn('127.0.0.1');
    const clone = await senderOn('127.0.0.2');
    const online = nextChange(directory, 'terminal-online');
    await sendTo(first, announce({ id: 'DSP-CLONE', kind: 'display', port: 8181 }), port);
    await online;
    const updated = nextChange(directory, 'terminal-updated');
    await sendTo(clone, announce({ id: 'DSP-CLONE', kind: 'display', port: 8181 }), port);
    await updated;
    const service = createConsoleService({ directory, askPorts: () => Promise.resolve([]) });
    const [entry] = await service.listTerminals();
    expect(entry).toMatchObject({ address: '127.0.0.1', conflict: { address: '127.0.0.2' } });
    const finding = (await service.diagnose(null)).findings.find((f) => f.code === 'id_conflict');
    expect(finding?.title).toBe(
      'DSP-CLONE is announced from two addresses: 127.0.0.1 and 127.0.0.2',
    );
  });
});

describe('a terminal seen earlier that is offline now', () => {
  it('is named with when it went silent and what to check, never "nothing looks wrong"', async () => {
    const clock = new FakeClock(Date.parse('2026-11-22T06:30:00.000Z'));
    const { directory, port } = await listeningDirectory(clock);
    const service = createConsoleService({
      directory,
      clock,
      askPorts: () => Promise.resolve([]),
    });
    const sender = await senderOn('127.0.0.1');
    const online = nextChange(directory, 'terminal-online');
    await sendTo(sender, announce({ id: 'ENR-GONE', kind: 'enrollment', port: 8182 }), port);
    await online;
    expect((await service.diagnose(null)).findings.filter((f) => f.code === 'gone')).toEqual([]);
    // Silent for longer than DISCOVERY_TIMEOUT: the directory's sweep marks it offline.
    const offline = nextChange(directory, 'terminal-offline');
    clock.advance(46_000);
    directory.sweep();
    await offline;
    const finding = (await service.diagnose(null)).findings.find((f) => f.code === 'gone');
    expect(finding?.title).toBe('ENR-GONE (127.0.0.1) is offline');
    expect(finding?.facts.join('\n')).toMatch(
      /offline since its last announce at .* from 127\.0\.0\.1/,
    );
    expect(finding?.facts.join('\n')).toContain('not pushed in this session: no proof');
    expect(finding?.advice.join('\n')).toMatch(/has power and a network link/);
  });
});

describe('listen again', () => {
  it('opens the discovery port once the program that held it lets it go', async () => {
    const { port, release } = await holdUdpPort();
    cleanups.push(release);
    const directory = new TerminalDirectory(
      { openSocket: openNodeUdpSocket, clock: new FakeClock() },
      { port },
    );
    cleanups.push(() => directory.close());
    await expect(directory.start()).rejects.toThrow(/EADDRINUSE/);
    const service = createConsoleService({ directory });
    expect((await service.listenAgain()).listening).toBe(false);
    await release();
    expect(await service.listenAgain()).toMatchObject({ listening: true, lastError: null });
  });

  it('a probe tries the port again before it sends', async () => {
    const holder = dgram.createSocket({ type: 'udp4' });
    await new Promise<void>((resolve) => holder.bind(0, '0.0.0.0', resolve));
    const port = holder.address().port;
    const clock = new FakeClock();
    const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port });
    cleanups.push(() => directory.close());
    await expect(directory.start()).rejects.toThrow(/EADDRINUSE/);
    const service = createConsoleService({
      directory,
      clock,
      probeAddresses: () => ['127.0.0.1'],
    });
    expect((await service.probe()).error).toMatch(
      new RegExp(`^Another program already uses UDP port ${port}, where terminals announce`),
    );
    await closeSocket(holder);
    clock.advance(1000); // past the probe throttle
    const report = await service.probe();
    expect(report.error).toBeNull();
    expect(directory.status().listening).toBe(true);
  });
});
