import { WarningCode, type ServiceWarning } from '@svc/shared';
import { existsSync } from 'node:fs';
import os from 'node:os';
import ipaddr from 'ipaddr.js';

export interface LocalInterface {
  name: string;
  address: string;
  netmask: string;
  family: 'IPv4' | 'IPv6';
  internal: boolean;
}

/** What the advertised-address logic needs from the host; tests pass their own. */
export interface HostInfo {
  interfaces(): LocalInterface[];
  /** True when this process runs inside a container, whose addresses terminals cannot reach. */
  inContainer(): boolean;
}

/**
 * A reading kept for `ms`: the host's interfaces are asked for by every heartbeat with details
 * and every probe answer, and the kernel's list cost more than the rest of such an answer. A
 * changed address is seen within a second.
 */
function keptFor<T>(ms: number, read: () => T): () => T {
  let value: T | undefined;
  let until = 0;
  return () => {
    const now = Date.now();
    if (value === undefined || now >= until) {
      value = read();
      until = now + ms;
    }
    return value;
  };
}

export const realHost: HostInfo = {
  interfaces: keptFor(1000, () =>
    Object.entries(os.networkInterfaces()).flatMap(([name, list]) =>
      (list ?? []).map((i) => ({
        name,
        address: i.address,
        netmask: i.netmask,
        family: i.family,
        internal: i.internal,
      })),
    ),
  ),
  // Whether this process runs in a container does not change while it runs.
  inContainer: keptFor(
    Number.POSITIVE_INFINITY,
    () => existsSync('/.dockerenv') || existsSync('/run/.containerenv'),
  ),
};

/** Interfaces of container engines and VMs: their addresses are never reachable from the LAN. */
const BRIDGE_NAME =
  /^(docker\d*|br-[0-9a-f]+|veth|cni|flannel|podman|cali|vxlan|virbr|lxcbr|lxdbr)/;

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  try {
    return ipaddr.process(host.replace(/^\[|\]$/g, '')).range() === 'loopback';
  } catch {
    return false;
  }
}

export function centralUrlFor(host: string, webPort: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return webPort === 80 ? `http://${h}` : `http://${h}:${webPort}`;
}

export type Advertised =
  | { ok: true; url: string; source: 'DISCOVERY_HTTP_BASE_URL' | 'DISCOVERY_HOST' | 'interface' }
  /** `problem` in English; `detail` the same as a code and values, for a client to word. */
  | { ok: false; problem: string; detail: ServiceWarning };

/** A refusal with its English words and the code and values a client words it from. */
function refused(code: string, params: ServiceWarning['params'], problem: string): Advertised {
  return { ok: false, problem, detail: { code, params, message: problem } };
}

export interface AddressConfig {
  httpBaseUrl: string;
  host: string;
  webPort: number;
}

/**
 * The central URL to advertise to a terminal at `terminalIp` (PROTOCOL §1): the operator's
 * explicit setting as given; otherwise the address of our interface on the terminal's subnet.
 * Never a guess: a loopback, container-bridge or unrelated address is refused with the reason.
 */
export function advertisedUrl(cfg: AddressConfig, host: HostInfo, terminalIp?: string): Advertised {
  if (cfg.httpBaseUrl) return { ok: true, url: cfg.httpBaseUrl, source: 'DISCOVERY_HTTP_BASE_URL' };
  if (cfg.host)
    return { ok: true, url: centralUrlFor(cfg.host, cfg.webPort), source: 'DISCOVERY_HOST' };
  // A container sees only its own bridge address, which terminals cannot reach, unless it runs
  // with host networking: then the engine's bridges (docker0, br-…) are visible too.
  const interfaces = host.interfaces();
  if (host.inContainer() && !interfaces.some((i) => BRIDGE_NAME.test(i.name))) {
    return refused(
      'address_in_container',
      {},
      'running in a container, whose addresses terminals cannot reach: set DISCOVERY_HOST to the host’s LAN address (or DISCOVERY_HTTP_BASE_URL)',
    );
  }
  if (!terminalIp) {
    return refused(
      'address_no_terminal',
      {},
      'no terminal address to match a local interface against',
    );
  }
  let terminal: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    terminal = ipaddr.process(terminalIp);
  } catch {
    return refused('address_not_ip', { address: terminalIp }, `not an IP address: ${terminalIp}`);
  }
  const candidates = interfaces.filter(
    (i) => !i.internal && !BRIDGE_NAME.test(i.name) && !isLoopback(i.address),
  );
  for (const i of candidates) {
    try {
      const local = ipaddr.process(i.address);
      if (local.kind() !== terminal.kind()) continue;
      const bits = ipaddr.parse(i.netmask).prefixLengthFromSubnetMask();
      if (bits !== null && terminal.match(local, bits)) {
        return { ok: true, url: centralUrlFor(local.toString(), cfg.webPort), source: 'interface' };
      }
    } catch {
      continue;
    }
  }
  return refused(
    'address_no_interface',
    { terminal: terminal.toString() },
    `no local interface on the subnet of terminal ${terminal.toString()}: set DISCOVERY_HOST (or DISCOVERY_HTTP_BASE_URL)`,
  );
}

/** Warnings about the explicit settings, for the log and the heartbeat. */
export function addressWarnings(cfg: AddressConfig): ServiceWarning[] {
  const explicit = cfg.httpBaseUrl ? new URL(cfg.httpBaseUrl).hostname : cfg.host;
  if (explicit && isLoopback(explicit)) {
    const address = cfg.httpBaseUrl || cfg.host;
    return [
      {
        code: WarningCode.advertisedLoopback,
        params: { address },
        message: `the advertised central address ${address} is a loopback address: terminals on the LAN cannot reach it (fine for single-host tests only)`,
      },
    ];
  }
  return [];
}
