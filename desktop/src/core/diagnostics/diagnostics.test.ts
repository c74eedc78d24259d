import { networkInterfaces } from 'node:os';
import { createConsoleService } from '../console-service.js';
import { TerminalDirectory } from '../terminal-directory.js';
import { FakeClock } from '../../testing/fake-clock.js';
import { diagnosticFacts } from '../../testing/stand-ins.js';
import { closeSocket, holdUdpPort, openSender, sendTo } from '../../testing/udp.js';
import { openNodeUdpSocket } from '@svc/shared/udp';
import { diagnose, SILENCE_MS } from './diagnostics.js';
import { localInterfaces } from '../interfaces.js';
import { setLanguage } from '../i18n.js';
import { socketProblemOf, socketProblemWords } from './port-words.js';

const base = diagnosticFacts();

describe('diagnostics, each from a condition created here', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const undo of cleanups.splice(0).reverse()) await undo();
  });

  it('port held by another process: the bind fails and the holder is named (pid and program)', async () => {
    const { child, port, release } = await holdUdpPort();
    cleanups.push(release);
    const clock = new FakeClock(Date.parse('2026-11-22T06:30:00.000Z'));
    const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port });
    await expect(directory.start()).rejects.toThrow(/EADDRINUSE/);
    const service = createConsoleService({ directory, clock, discoveryPort: port });
    const report = await service.diagnose(null);
    const finding = report.findings.find((f) => f.code === 'port_held');
    expect(finding?.title).toContain(`UDP port ${port}`);
    if (process.platform === 'linux') {
      expect(finding?.facts.join('\n')).toContain(`held by node (process ${child.pid}:`);
    }
    // Diagnostics says it in words too: no socket error code in its facts.
    expect(finding?.facts.join('\n')).toContain(`could not open UDP ${port}`);
    expect(finding?.facts.join('\n')).not.toMatch(/EADDRINUSE|bind /);
    expect(finding?.advice.join('\n')).toMatch(/Close that program/);
    // The banner says it in words, naming the holder (never the socket's EADDRINUSE).
    const status = await service.getStatus();
    expect(status.socketProblem?.code).toBe('port_held');
    const said = socketProblemWords(status.socketProblem!);
    expect(said).not.toMatch(/EADDRINUSE/);
    expect(said).toMatch(new RegExp(`^Another program already uses UDP port ${port}`));
    if (process.platform === 'linux') expect(said).toContain(`node (process ${child.pid}:`);
  });

  it('a terminal proven earlier and offline now: named, with offline since, last proof and what to check', () => {
    const findings = diagnose({
      ...base,
      gone: [
        {
          id: 'ENR-1',
          address: '10.1.0.21',
          lastSeen: '2026-11-22T06:30:00.000Z',
          proof: { at: '2026-11-22T06:20:00.000Z', ok: true, centralUrl: 'http://10.1.0.2' },
        },
      ],
    });
    expect(findings).toHaveLength(1);
    const [gone] = findings;
    expect(gone?.severity).toBe('problem');
    expect(gone?.title).toBe('ENR-1 (10.1.0.21) is offline, though its push was proven');
    expect(gone?.facts[0]).toMatch(/^offline since its last announce at .+ from 10\.1\.0\.21$/);
    expect(gone?.facts[1]).toMatch(
      /^last proof: pushed at .+, saved, read back and checked in at http:\/\/10\.1\.0\.2/,
    );
    expect(gone?.advice.join(' ')).toMatch(/Run Diagnostics with its address 10\.1\.0\.21/);
  });

  it('a held port whose holder the system does not show: says how to find it, in both languages', async () => {
    const problem = socketProblemOf('bind EADDRINUSE 0.0.0.0:20785', 20785, null, 'linux');
    expect(socketProblemWords(problem)).toMatch(
      /does not tell the console which program: find it with sudo ss -ulpn 'sport = :20785'/,
    );
    expect(socketProblemWords(socketProblemOf('bind EACCES', 85, null, 'win32'))).toMatch(
      /does not allow the console to open UDP port 85/,
    );
    await setLanguage('zh-CN');
    try {
      const said = socketProblemWords(problem);
      expect(said).toContain('另一个程序已占用终端广播所用的 UDP 端口 20785');
      expect(said).not.toMatch(/EADDRINUSE/);
    } finally {
      await setLanguage('en');
    }
  });

  it('terminal on a subnet the laptop lacks: says so and lists every interface with its mask', async () => {
    const clock = new FakeClock(Date.parse('2026-11-22T06:30:00.000Z'));
    const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port: 0 });
    await directory.start();
    cleanups.push(() => directory.close());
    const table = {
      lo: networkInterfaces().lo ?? [],
      eth9: [
        {
          address: '192.168.77.20',
          netmask: '255.255.255.0',
          family: 'IPv4' as const,
          mac: '3c:52:82:00:00:01',
          internal: false,
          cidr: '192.168.77.20/24',
        },
      ],
    };
    const service = createConsoleService({
      directory,
      clock,
      interfaces: () => table,
      askPorts: () => Promise.resolve([]),
    });
    const missing = await service.diagnose('10.40.0.15');
    const finding = missing.findings.find((f) => f.code === 'no_subnet');
    expect(finding?.title).toContain('10.40.0.15');
    expect(finding?.facts).toContain('eth9: 192.168.77.20 mask 255.255.255.0 (192.168.77.0/24)');
    // Loopback counts as an interface: it is listed, and a terminal on it is on a local subnet.
    expect(finding?.facts.join('\n')).toMatch(/lo: 127\.0\.0\.1 mask 255\.0\.0\.0 .*loopback/);
    const local = await service.diagnose('127.0.0.9');
    expect(local.findings.map((f) => f.code)).not.toContain('no_subnet');
    const present = await service.diagnose('192.168.77.99');
    expect(present.findings.map((f) => f.code)).not.toContain('no_subnet');
  });

  it('silence: nothing heard for 60 s on a listening port gives firewall advice; a datagram clears it', async () => {
    const clock = new FakeClock(Date.parse('2026-11-22T06:30:00.000Z'));
    const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port: 0 });
    await directory.start();
    cleanups.push(() => directory.close());
    const service = createConsoleService({ directory, clock, platform: 'win32' });
    clock.advance(SILENCE_MS - 1000);
    expect((await service.diagnose(null)).findings.map((f) => f.code)).not.toContain('silence');
    clock.advance(1000);
    const silent = (await service.diagnose(null)).findings.find((f) => f.code === 'silence');
    expect(silent?.title).toMatch(/Nothing heard on UDP \d+ for 60 s/);
    expect(silent?.advice.join('\n')).toContain('New-NetFirewallRule');

    const sender = await openSender();
    cleanups.push(() => closeSocket(sender));
    const heard = new Promise<void>((resolve) => {
      const off = directory.onChange(() => {
        off();
        resolve();
      });
    });
    await sendTo(sender, 'not a datagram', directory.status().local!.port);
    await heard;
    expect((await service.diagnose(null)).findings.map((f) => f.code)).not.toContain('silence');
  });

  it('a VM behind NAT: a hypervisor MAC on its NAT network; bridged is not flagged', () => {
    const nat = localInterfaces({
      enp0s3: [
        {
          address: '10.0.2.15',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '08:00:27:aa:bb:cc',
          internal: false,
          cidr: '10.0.2.15/24',
        },
      ],
    });
    const finding = diagnose({ ...base, interfaces: nat }).find((f) => f.code === 'vm_nat');
    expect(finding?.title).toContain('VirtualBox');
    expect(finding?.facts).toContain('enp0s3: 10.0.2.15 is in a hypervisor NAT network');
    const bridged = localInterfaces({
      enp0s3: [
        {
          address: '192.168.1.40',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '08:00:27:aa:bb:cc',
          internal: false,
          cidr: '192.168.1.40/24',
        },
      ],
    });
    expect(diagnose({ ...base, interfaces: bridged }).map((f) => f.code)).not.toContain('vm_nat');
  });
});
