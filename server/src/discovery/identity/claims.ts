import ipaddr from 'ipaddr.js';

/** An address and management port a node id was heard from. */
export interface Endpoint {
  address: string;
  port: number;
}

/** A second endpoint claiming an online node's id, kept beside it (never instead of it). */
export interface Claimant extends Endpoint {
  firstHeard: Date;
  lastHeard: Date;
}

/** What the store knows of a node when an announce for its id arrives. */
export interface Known extends Endpoint {
  lastSeen: Date;
  conflict: Claimant | null;
}

/**
 * What one announce does to its node (PROTOCOL §1):
 * - `new`: an id not heard before;
 * - `refresh`: heard from its accepted endpoint (a claimant silent for the timeout is forgotten);
 * - `moved`: heard from another endpoint after the accepted one was silent for the timeout;
 * - `conflict`: heard from another endpoint while the node is online: the node stays where it
 *   is and the sender becomes (or stays) its claimant. `fresh` when this claimant is new.
 */
export type Claim =
  | { kind: 'new' }
  | { kind: 'refresh'; conflict: Claimant | null }
  | { kind: 'moved'; from: Endpoint; silentSince: Date }
  | { kind: 'conflict'; conflict: Claimant; fresh: boolean };

export const sameEndpoint = (a: Endpoint, b: Endpoint) =>
  a.address === b.address && a.port === b.port;

/** An ip in one spelling: IPv4-mapped IPv6 (`::ffff:10.0.0.5`) becomes `10.0.0.5`. */
export function normalizeIp(ip: string): string {
  try {
    return ipaddr.process(ip).toString();
  } catch {
    return ip;
  }
}

export const isLive = (c: Claimant | null, since: number): c is Claimant =>
  c !== null && c.lastHeard.getTime() >= since;

export function judge(
  known: Known | undefined,
  from: Endpoint,
  at: Date,
  timeoutMs: number,
): Claim {
  if (!known) return { kind: 'new' };
  const since = at.getTime() - timeoutMs;
  if (sameEndpoint(known, from)) {
    return { kind: 'refresh', conflict: isLive(known.conflict, since) ? known.conflict : null };
  }
  if (known.lastSeen.getTime() < since) {
    return {
      kind: 'moved',
      from: { address: known.address, port: known.port },
      silentSince: known.lastSeen,
    };
  }
  const previous = isLive(known.conflict, since) ? known.conflict : null;
  if (previous && sameEndpoint(previous, from)) {
    return { kind: 'conflict', conflict: { ...previous, lastHeard: at }, fresh: false };
  }
  return {
    kind: 'conflict',
    conflict: { address: from.address, port: from.port, firstHeard: at, lastHeard: at },
    fresh: true,
  };
}
