import type { DiscoveryNode } from '@svc/shared';
import { isLive, sameEndpoint, type Claimant, type Endpoint } from '../identity/claims.js';

/** A node as this process knows it: the accepted endpoint, what it announced, its claimant. */
export interface NodeState extends Endpoint {
  id: string;
  kind: DiscoveryNode['kind'];
  name: string;
  model: string;
  version: string;
  central: string;
  lastSeen: Date;
  conflict: Claimant | null;
}

export interface Cached extends NodeState {
  lastCheckin: Date | null;
  organizationId: string | null;
  /** This node's entry of the JSON answer, made once per change rather than per request. */
  json?: string;
}

/** The columns an announce writes (tokens, check-ins and organization are written elsewhere). */
export const COLUMNS = [
  'id',
  'kind',
  'name',
  'model',
  'version',
  'address',
  'port',
  'central',
  'last_seen',
  'conflict_address',
  'conflict_port',
  'conflict_first_heard',
  'conflict_last_heard',
  'created_at',
] as const;
const UPDATED = COLUMNS.filter((c) => c !== 'id' && c !== 'created_at');

export const SELECT_NODES = `SELECT id, kind, name, model, version, address, port, central, last_seen, last_checkin, organization_id, conflict_address, conflict_port, conflict_first_heard, conflict_last_heard FROM discovered_nodes`;

export interface NodeRowRaw {
  id: string;
  kind: string;
  name: string;
  model: string;
  version: string;
  address: string;
  port: number | string;
  central: string;
  last_seen: Date | string;
  last_checkin: Date | string | null;
  organization_id: string | null;
  conflict_address: string | null;
  conflict_port: number | string | null;
  conflict_first_heard: Date | string | null;
  conflict_last_heard: Date | string | null;
}

/** The node's own fields, without what a cache entry adds. */
export function stateOf(n: NodeState): NodeState {
  return {
    id: n.id,
    kind: n.kind,
    name: n.name,
    model: n.model,
    version: n.version,
    address: n.address,
    port: n.port,
    central: n.central,
    lastSeen: n.lastSeen,
    conflict: n.conflict,
  };
}

export function toCached(r: NodeRowRaw): Cached {
  const c = r.conflict_address;
  return {
    id: r.id,
    kind: r.kind as DiscoveryNode['kind'],
    name: r.name,
    model: r.model,
    version: r.version,
    address: r.address,
    port: Number(r.port),
    central: r.central,
    lastSeen: new Date(r.last_seen),
    lastCheckin: r.last_checkin === null ? null : new Date(r.last_checkin),
    organizationId: r.organization_id,
    conflict:
      c === null || r.conflict_port === null || !r.conflict_first_heard || !r.conflict_last_heard
        ? null
        : {
            address: c,
            port: Number(r.conflict_port),
            firstHeard: new Date(r.conflict_first_heard),
            lastHeard: new Date(r.conflict_last_heard),
          },
  };
}

export function toRow(
  n: NodeState & { createdAt: Date },
  _columns: typeof COLUMNS,
): (string | number | Date | null)[] {
  return [
    n.id,
    n.kind,
    n.name,
    n.model,
    n.version,
    n.address,
    n.port,
    n.central,
    n.lastSeen,
    n.conflict?.address ?? null,
    n.conflict?.port ?? null,
    n.conflict?.firstHeard ?? null,
    n.conflict?.lastHeard ?? null,
    n.createdAt,
  ];
}

export function upsertSql(dialect: 'mysql' | 'sqlite', count: number): string {
  const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
  const conflict =
    dialect === 'mysql'
      ? `ON DUPLICATE KEY UPDATE ${UPDATED.map((c) => `${c} = VALUES(${c})`).join(', ')}`
      : `ON CONFLICT (id) DO UPDATE SET ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  return `INSERT INTO discovered_nodes (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: count }, () => tuple).join(', ')} ${conflict}`;
}

/** This node's entry of the list's JSON, made once per change (a stale claimant is dropped). */
export function entryJson(n: Cached, since: number): string {
  if (n.conflict && !isLive(n.conflict, since)) {
    n.conflict = null;
    n.json = undefined;
  }
  n.json ??= JSON.stringify(nodeOut(n));
  return n.json;
}

/** A node as the list shows it while it is online (its claimant as last judged). */
export function nodeOut(n: Cached): DiscoveryNode {
  const c = n.conflict;
  return {
    id: n.id,
    kind: n.kind,
    name: n.name,
    model: n.model,
    version: n.version,
    address: n.address,
    port: n.port,
    configUrl: `http://${n.address.includes(':') ? `[${n.address}]` : n.address}:${n.port}/api/config`,
    central: n.central,
    lastSeen: n.lastSeen.toISOString(),
    lastCheckin: n.lastCheckin?.toISOString() ?? null,
    online: true,
    conflict: c && {
      address: c.address,
      port: c.port,
      firstHeard: c.firstHeard.toISOString(),
      lastHeard: c.lastHeard.toISOString(),
    },
  };
}

export const changedAt = (n: NodeState) =>
  Math.max(n.lastSeen.getTime(), n.conflict?.lastHeard.getTime() ?? 0);

export function sameNode(a: Cached, b: Cached): boolean {
  return (
    a.lastSeen.getTime() === b.lastSeen.getTime() &&
    (a.lastCheckin?.getTime() ?? null) === (b.lastCheckin?.getTime() ?? null) &&
    sameEndpoint(a, b) &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.model === b.model &&
    a.version === b.version &&
    a.central === b.central &&
    a.organizationId === b.organizationId &&
    (a.conflict === null
      ? b.conflict === null
      : b.conflict !== null &&
        sameEndpoint(a.conflict, b.conflict) &&
        a.conflict.lastHeard.getTime() === b.conflict.lastHeard.getTime())
  );
}
