import { t } from '../i18n.js';
import { interfaceFor, type LocalInterface } from '../interfaces.js';
import type { PortAnswer } from './management-port.js';
import type { PortHolder } from './port-holders.js';
import { portCommand } from './port-words.js';
import { goneFinding, type GoneTerminal } from './gone.js';

/** Nothing heard for this long, on a listening port, is worth a finding. */
export const SILENCE_MS = 60_000;

export interface Finding {
  code:
    | 'port_held'
    | 'no_subnet'
    | 'routed_terminal'
    | 'silence'
    | 'vm_nat'
    | 'not_heard'
    | 'id_conflict'
    | 'gone';
  severity: 'problem' | 'warning';
  title: string;
  /** What the console measured. */
  facts: string[];
  /** What the technician can do about it. */
  advice: string[];
}

export interface DiagnosticFacts {
  port: number;
  listening: boolean;
  lastError: string | null;
  /** Holders of the port, when the OS lets the console see them (null: it does not). */
  holders: PortHolder[] | null;
  ownPid: number;
  interfaces: LocalInterface[];
  /** An address the technician expects a terminal at (from its label), if typed. */
  expectedAddress: string | null;
  /** Terminals heard from an address on no local subnet (through a router). */
  routed: { id: string; address: string }[];
  /**
   * The expected address when no announce came from it, with what its management ports
   * answered; null when it was heard (or none was typed).
   */
  notHeard: { address: string; answers: PortAnswer[] } | null;
  /** Terminals of this session not heard now (gone offline, or pushed to and never heard). */
  gone: GoneTerminal[];
  /** Terminal ids announced from two addresses. */
  conflicts: { id: string; address: string; other: string }[];
  /** When the port was opened, and the last datagram of any kind heard (ms). */
  listeningSince: number | null;
  lastHeardAt: number | null;
  now: number;
  platform: NodeJS.Platform;
  /** The machine's product name (Linux DMI), e.g. "VirtualBox"; null when unknown. */
  productName: string | null;
}

const VM_MACS: Record<string, string> = {
  '08:00:27': 'VirtualBox',
  '00:0c:29': 'VMware',
  '00:50:56': 'VMware',
  '00:05:69': 'VMware',
  '52:54:00': 'QEMU/KVM',
  '00:15:5d': 'Hyper-V',
  '00:1c:42': 'Parallels',
};
const VM_PRODUCTS = /virtualbox|vmware|kvm|qemu|virtual machine|parallels|hvm domu/i;
// The default NAT networks of the common hypervisors (and Docker's bridge).
const NAT_NETWORKS = ['10.0.2.0/24', '192.168.122.0/24', '172.17.0.0/16', '192.168.64.0/24'];

function listInterfaces(interfaces: LocalInterface[]): string[] {
  const lines = interfaces.map((i) =>
    t(i.internal ? 'diagnostics.interfaceLoopback' : 'diagnostics.interface', {
      name: i.name,
      address: i.address,
      netmask: i.netmask,
      cidr: i.cidr,
    }),
  );
  if (interfaces.every((i) => i.internal)) lines.push(t('diagnostics.onlyLoopback'));
  return lines;
}

function notHeardFinding(address: string, answers: PortAnswer[], port: number): Finding {
  const found = answers.find((a) => a.kind === 'terminal' || a.kind === 'terminal_with_key');
  const shown = found ? [found] : answers;
  // Ports that answered alike share one piece of advice ("Ports 8182, 8181: …").
  const byKind = new Map<PortAnswer['kind'], number[]>();
  for (const a of shown) byKind.set(a.kind, [...(byKind.get(a.kind) ?? []), a.port]);
  return {
    code: 'not_heard',
    severity: 'problem',
    title: t('diagnostics.notHeard.title', { address }),
    facts: [
      t('diagnostics.notHeard.fact', { address, port }),
      ...answers.map((a) => t('diagnostics.notHeard.port', { port: a.port, detail: a.detail })),
    ],
    advice: [
      ...[...byKind].map(([kind, ports]) =>
        t('diagnostics.notHeard.means', {
          count: ports.length,
          ports: ports.join(', '),
          means: t(`diagnostics.answerMeans.${kind}`),
        }),
      ),
      t('diagnostics.notHeard.probe'),
    ],
  };
}

function firewallAdvice(platform: NodeJS.Platform, port: number): string[] {
  switch (platform) {
    case 'win32':
      return [
        t('diagnostics.firewall.windows', {
          port,
          command: `New-NetFirewallRule -DisplayName "svc console discovery" -Direction Inbound -Protocol UDP -LocalPort ${port} -Action Allow`,
        }),
        t('diagnostics.firewall.windowsPublic'),
      ];
    case 'darwin':
      return [t('diagnostics.firewall.mac')];
    default:
      return [
        t('diagnostics.firewall.linux', {
          port,
          ufw: `sudo ufw allow ${port}/udp`,
          firewalld: `sudo firewall-cmd --add-port=${port}/udp`,
        }),
      ];
  }
}

function inNetwork(address: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const mask = bits === '16' ? '255.255.0.0' : '255.255.255.0';
  return (
    interfaceFor(address, [
      {
        name: '',
        address: net ?? '',
        netmask: mask,
        cidr,
        broadcast: null,
        mac: '',
        internal: false,
      },
    ]) !== null
  );
}

/** Findings from measured facts; an empty list means nothing looks wrong. */
export function diagnose(f: DiagnosticFacts): Finding[] {
  const findings: Finding[] = [];
  if (!f.listening && f.lastError && /EADDRINUSE/.test(f.lastError)) {
    const others = (f.holders ?? []).filter((h) => h.pid !== f.ownPid);
    findings.push({
      code: 'port_held',
      severity: 'problem',
      title: t('diagnostics.portHeld.title', { port: f.port }),
      facts: [
        // In words: the socket's EADDRINUSE is the system's code, not the technician's.
        t('diagnostics.portHeld.inUse', { port: f.port }),
        ...(f.holders === null
          ? [t('diagnostics.portHeld.hidden')]
          : others.length > 0
            ? others.map((h) =>
                t('diagnostics.portHeld.holder', { pid: h.pid, name: h.name, command: h.command }),
              )
            : [t('diagnostics.portHeld.noHolder')]),
      ],
      advice: [
        t('diagnostics.portHeld.close', { command: portCommand(f.platform, f.port) }),
        t('diagnostics.portHeld.share'),
      ],
    });
  }
  const external = f.interfaces.filter((i) => !i.internal);
  if (f.expectedAddress) {
    // Loopback and internal interfaces count: a terminal on this laptop is on its subnet.
    const match = interfaceFor(f.expectedAddress, f.interfaces);
    if (!match) {
      findings.push({
        code: 'no_subnet',
        severity: 'problem',
        title: t('diagnostics.noSubnet.title', { address: f.expectedAddress }),
        facts: listInterfaces(f.interfaces),
        advice: [t('diagnostics.noSubnet.advice', { address: f.expectedAddress })],
      });
    }
  }
  if (f.notHeard) findings.push(notHeardFinding(f.notHeard.address, f.notHeard.answers, f.port));
  // Proven ones first: a site that looked done is the one to hear about first.
  const gone = [...f.gone].sort((a, b) => Number(b.proof?.ok ?? 0) - Number(a.proof?.ok ?? 0));
  for (const g of gone) findings.push(goneFinding(g));
  for (const c of f.conflicts) {
    findings.push({
      code: 'id_conflict',
      severity: 'problem',
      title: t('diagnostics.conflict.title', { id: c.id, address: c.address, other: c.other }),
      facts: [
        t('diagnostics.conflict.heard', { id: c.id, address: c.address, other: c.other }),
        t('diagnostics.conflict.kept', { address: c.address }),
      ],
      advice: [t('diagnostics.conflict.clone'), t('diagnostics.conflict.moved')],
    });
  }
  for (const r of f.routed) {
    findings.push({
      code: 'routed_terminal',
      severity: 'warning',
      title: t('diagnostics.routed.title', { id: r.id, address: r.address }),
      facts: listInterfaces(f.interfaces),
      advice: [t('diagnostics.routed.advice')],
    });
  }
  const since = Math.max(f.lastHeardAt ?? 0, f.listeningSince ?? 0);
  if (f.listening && f.listeningSince !== null && f.now - since >= SILENCE_MS) {
    const seconds = Math.round((f.now - since) / 1000);
    findings.push({
      code: 'silence',
      severity: 'problem',
      title: t('diagnostics.silence.title', { port: f.port, seconds }),
      facts: [
        f.lastHeardAt === null
          ? t('diagnostics.silence.never', { seconds })
          : t('diagnostics.silence.last', { seconds }),
        ...listInterfaces(f.interfaces),
      ],
      advice: [...firewallAdvice(f.platform, f.port), t('diagnostics.silence.cable')],
    });
  }
  const vmByMac = external
    .map((i) => ({ i, vendor: VM_MACS[i.mac.toLowerCase().slice(0, 8)] }))
    .filter((x) => x.vendor);
  const vendor =
    vmByMac[0]?.vendor ?? (f.productName && VM_PRODUCTS.test(f.productName) ? f.productName : null);
  const natted = external.filter((i) => NAT_NETWORKS.some((n) => inNetwork(i.address, n)));
  if (vendor && natted.length > 0 && natted.length === external.length) {
    findings.push({
      code: 'vm_nat',
      severity: 'problem',
      title: t('diagnostics.vm.title', { vendor }),
      facts: [
        ...vmByMac.map((x) =>
          t('diagnostics.vm.mac', { name: x.i.name, mac: x.i.mac, vendor: x.vendor ?? '' }),
        ),
        ...(f.productName ? [t('diagnostics.vm.machine', { product: f.productName })] : []),
        ...natted.map((i) => t('diagnostics.vm.nat', { name: i.name, address: i.address })),
      ],
      advice: [t('diagnostics.vm.advice')],
    });
  }
  return findings;
}
