import type { NetworkInterfaceInfo } from 'node:os';

export const LIMITED_BROADCAST = '255.255.255.255';

function toInt(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

function toDotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The directed broadcast address of an IPv4 interface, or null (/31, /32, or not IPv4). */
export function subnetBroadcast(address: string, netmask: string): string | null {
  const ip = toInt(address);
  const mask = toInt(netmask);
  if (ip === null || mask === null) return null;
  const host = 0xffffffff - mask;
  if (host < 3) return null; // point-to-point or single host: no broadcast
  if (!Number.isInteger(Math.log2(host + 1))) return null; // not a contiguous netmask
  // (ip | host) without 32-bit signed bitwise surprises
  return toDotted(ip - (ip % (host + 1)) + host);
}

/**
 * Where a probe goes: the limited broadcast plus each non-loopback IPv4 interface's subnet
 * broadcast (PROTOCOL §1: terminals answer 255.255.255.255 and/or the subnet broadcast; a host
 * without a default route cannot send to 255.255.255.255 at all).
 */
export function probeAddresses(
  interfaces: Partial<Record<string, NetworkInterfaceInfo[]>>,
): string[] {
  const addresses = new Set<string>([LIMITED_BROADCAST]);
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal) continue;
      const broadcast = subnetBroadcast(info.address, info.netmask);
      if (broadcast) addresses.add(broadcast);
    }
  }
  return [...addresses];
}
