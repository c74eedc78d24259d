import type { NetworkInterfaceInfo } from 'node:os';
import { subnetBroadcast } from './network.js';

/** One IPv4 address of this laptop, as the technician sees it in the diagnostics. */
export interface LocalInterface {
  name: string;
  address: string;
  netmask: string;
  /** e.g. 192.168.1.0/24 */
  cidr: string;
  broadcast: string | null;
  mac: string;
  internal: boolean;
}

export type InterfaceTable = Partial<Record<string, NetworkInterfaceInfo[]>>;

function toInt(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    return null;
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function prefixLength(netmask: string): number {
  const mask = toInt(netmask) ?? 0;
  let bits = 0;
  for (let i = 31; i >= 0; i -= 1) if (Math.floor(mask / 2 ** i) % 2 === 1) bits += 1;
  return bits;
}

function network(address: number, mask: number): number {
  // (address & mask) without signed 32-bit surprises
  const host = 0xffffffff - mask;
  return address - (address % (host + 1));
}

/** Every IPv4 address of this laptop (loopback included, marked internal). */
export function localInterfaces(table: InterfaceTable): LocalInterface[] {
  const out: LocalInterface[] = [];
  for (const [name, infos] of Object.entries(table)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4') continue;
      const ip = toInt(info.address);
      const mask = toInt(info.netmask);
      if (ip === null || mask === null) continue;
      const net = network(ip, mask);
      const dotted = [24, 16, 8, 0].map((s) => Math.floor(net / 2 ** s) % 256).join('.');
      out.push({
        name,
        address: info.address,
        netmask: info.netmask,
        cidr: `${dotted}/${prefixLength(info.netmask)}`,
        broadcast: subnetBroadcast(info.address, info.netmask),
        mac: info.mac,
        internal: info.internal,
      });
    }
  }
  return out;
}

/** The interface whose subnet holds `address` (the most specific one), or null. */
export function interfaceFor(address: string, interfaces: LocalInterface[]): LocalInterface | null {
  const ip = toInt(address);
  if (ip === null) return null;
  let best: LocalInterface | null = null;
  let bestBits = -1;
  for (const candidate of interfaces) {
    const own = toInt(candidate.address);
    const mask = toInt(candidate.netmask);
    if (own === null || mask === null) continue;
    if (network(ip, mask) !== network(own, mask)) continue;
    const bits = prefixLength(candidate.netmask);
    if (bits > bestBits) {
      best = candidate;
      bestBits = bits;
    }
  }
  return best;
}
