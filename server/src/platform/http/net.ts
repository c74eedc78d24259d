import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/** The client's address as Express derives it (only trusted proxies' X-Forwarded-For). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Normalizes an address as Node reports it (IPv4-mapped IPv6 becomes plain IPv4). */
export function normalizeAddress(address: string | undefined): string | undefined {
  if (!address) return undefined;
  try {
    return ipaddr.process(address).toString();
  } catch {
    return undefined;
  }
}

/** Builds a matcher for a CIDR list such as TRUSTED_NETWORKS. */
export function cidrMatcher(cidrs: readonly string[]): (address: string | undefined) => boolean {
  const ranges = cidrs.map((c) => ipaddr.parseCIDR(c));
  return (address) => {
    const normalized = normalizeAddress(address);
    if (!normalized) return false;
    const ip = ipaddr.parse(normalized);
    return ranges.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits));
  };
}
