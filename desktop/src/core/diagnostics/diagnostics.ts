import { interfaceFor, type LocalInterface } from '../interfaces.js';
import type { PortHolder } from './port-holders.js';

/** Nothing heard for this long, on a listening port, is worth a finding. */
export const SILENCE_MS = 60_000;

export interface Finding {
  code: 'port_held' | 'no_subnet' | 'routed_terminal' | 'silence' | 'vm_nat';
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
  const external = interfaces.filter((i) => !i.internal);
  if (external.length === 0) return ['this laptop has no network address besides loopback'];
  return external.map((i) => `${i.name}: ${i.address} mask ${i.netmask} (${i.cidr})`);
}

function firewallAdvice(platform: NodeJS.Platform, port: number): string[] {
  switch (platform) {
    case 'win32':
      return [
        `Windows Defender Firewall: allow inbound UDP ${port}, e.g. in an administrator PowerShell: New-NetFirewallRule -DisplayName "svc console discovery" -Direction Inbound -Protocol UDP -LocalPort ${port} -Action Allow`,
        'A network set to "Public" blocks broadcasts: set the site network to "Private".',
      ];
    case 'darwin':
      return [
        'System Settings → Network → Firewall: allow incoming connections for svc console (or turn off "Block all incoming connections").',
      ];
    default:
      return [
        `Allow inbound UDP ${port}: sudo ufw allow ${port}/udp, or sudo firewall-cmd --add-port=${port}/udp, or an nftables/iptables accept rule.`,
      ];
  }
}

function portCommand(platform: NodeJS.Platform, port: number): string {
  if (platform === 'win32') return `netstat -abno -p udp | findstr :${port}`;
  if (platform === 'darwin') return `sudo lsof -nP -iUDP:${port}`;
  return `sudo ss -ulpn 'sport = :${port}'`;
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
      title: `UDP port ${f.port} is held by another program`,
      facts: [
        `binding UDP ${f.port} failed: ${f.lastError}`,
        ...(f.holders === null
          ? ['this system does not let the console see which program holds it']
          : others.length > 0
            ? others.map((h) => `held by pid ${h.pid} (${h.name}): ${h.command}`)
            : ['no holder visible to this user (it may belong to another user)']),
      ],
      advice: [
        `Close that program (find it with: ${portCommand(f.platform, f.port)}), then probe again.`,
        'A central service on this laptop can share the port only if it binds with SO_REUSEADDR.',
      ],
    });
  }
  const external = f.interfaces.filter((i) => !i.internal);
  if (f.expectedAddress) {
    const match = interfaceFor(f.expectedAddress, external);
    if (!match) {
      findings.push({
        code: 'no_subnet',
        severity: 'problem',
        title: `No interface of this laptop is on the subnet of ${f.expectedAddress}`,
        facts: listInterfaces(f.interfaces),
        advice: [
          `Broadcasts do not cross routers: connect this laptop to the terminal's network, or give it an address in the subnet of ${f.expectedAddress}.`,
        ],
      });
    }
  }
  for (const t of f.routed) {
    findings.push({
      code: 'routed_terminal',
      severity: 'warning',
      title: `${t.id} is heard from ${t.address}, on no subnet of this laptop`,
      facts: listInterfaces(f.interfaces),
      advice: [
        'Its announces come through a router or a relay; probes from here may not reach it.',
      ],
    });
  }
  const since = Math.max(f.lastHeardAt ?? 0, f.listeningSince ?? 0);
  if (f.listening && f.listeningSince !== null && f.now - since >= SILENCE_MS) {
    const seconds = Math.round((f.now - since) / 1000);
    findings.push({
      code: 'silence',
      severity: 'problem',
      title: `Nothing heard on UDP ${f.port} for ${seconds} s on any interface`,
      facts: [
        f.lastHeardAt === null
          ? `no datagram at all since the port was opened ${seconds} s ago`
          : `last datagram ${seconds} s ago`,
        ...listInterfaces(f.interfaces),
      ],
      advice: [
        ...firewallAdvice(f.platform, f.port),
        'Check the cable or Wi-Fi, and that terminals are powered and on this network.',
      ],
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
      title: `This console looks like it runs in a virtual machine (${vendor}) behind NAT`,
      facts: [
        ...vmByMac.map((x) => `${x.i.name} has MAC ${x.i.mac} (${x.vendor})`),
        ...(f.productName ? [`machine: ${f.productName}`] : []),
        ...natted.map((i) => `${i.name}: ${i.address} is in a hypervisor NAT network`),
      ],
      advice: [
        "Broadcasts from the site do not pass a hypervisor's NAT: switch the VM's network adapter to bridged mode on the site network, or run the console on the host.",
      ],
    });
  }
  return findings;
}
