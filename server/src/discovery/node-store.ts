import { createHash } from 'node:crypto';
import { Op, QueryTypes, type Sequelize } from 'sequelize';
import type { AnnounceDatagram, DiscoveryNode } from '@svc/shared';
import type { Models } from '../db/models.js';
import type { Clock } from '../clock.js';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

interface Pending {
  id: string;
  kind: AnnounceDatagram['kind'];
  name: string;
  model: string;
  version: string;
  address: string;
  port: number;
  central: string;
  lastSeen: Date;
  createdAt: Date;
}

interface NodeRowRaw {
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
}

const COLUMNS = [
  'id',
  'kind',
  'name',
  'model',
  'version',
  'address',
  'port',
  'central',
  'last_seen',
  'created_at',
];
const UPDATED = COLUMNS.filter((c) => c !== 'id' && c !== 'created_at');
const CHUNK = 500;
/**
 * The list is re-read from the database this often, for what other server processes wrote;
 * this process's own writes reach the snapshot at once. (Reading ten thousand rows blocks the
 * event loop for tens of milliseconds, so not on every request.)
 */
const FRESH_MS = 15_000;
/** Older than this, a request waits for a re-read instead of serving the previous one. */
const STALE_MS = 60_000;

interface Cached extends Omit<DiscoveryNode, 'lastSeen' | 'lastCheckin' | 'online'> {
  lastSeen: Date;
  lastCheckin: Date | null;
  /** This node's entry of the JSON answer, made once per change rather than per request. */
  json?: string;
}

function entryJson(n: Cached): string {
  if (n.json === undefined) {
    const node: DiscoveryNode = {
      id: n.id,
      kind: n.kind,
      name: n.name,
      model: n.model,
      version: n.version,
      address: n.address,
      port: n.port,
      configUrl: n.configUrl,
      central: n.central,
      lastSeen: n.lastSeen.toISOString(),
      lastCheckin: n.lastCheckin?.toISOString() ?? null,
      online: true,
    };
    n.json = JSON.stringify(node);
  }
  return n.json;
}

/**
 * Discovered nodes live in the database, so every server process sees one list. Announces are
 * written behind in batches with one multi-row upsert: at a thousand datagrams a second, a
 * write per datagram would cost more than everything else the worker does. Reads come from a
 * snapshot of the table, refreshed at most once a second and updated at once by this process's
 * own writes: reading ten thousand rows costs more than the answer is allowed to take.
 */
export class NodeStore {
  private pending = new Map<string, Pending>();
  private snapshot: Map<string, Cached> | undefined;
  private snapshotAt = 0;
  private refreshing: Promise<void> | undefined;
  private sortedIds: string[] | undefined;
  private flushing: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { sequelize: Sequelize; models: Models; clock: Clock }) {}

  record(announce: AnnounceDatagram, address: string, at: Date): void {
    this.pending.set(announce.id, {
      id: announce.id,
      kind: announce.kind,
      name: announce.name ?? '',
      model: announce.model ?? '',
      version: announce.version ?? '',
      address,
      port: announce.port,
      central: announce.central ?? '',
      lastSeen: at,
      createdAt: at,
    });
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Writes what was heard since the last flush; returns how many nodes it wrote. */
  flush(): Promise<number> {
    // One flush at a time: a caller that flushes to read its writes back must also wait for
    // the one already writing what it heard earlier.
    const next = this.flushing.then(() => this.flushPending());
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async flushPending(): Promise<number> {
    if (this.pending.size === 0) return 0;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      for (let i = 0; i < rows.length; i += CHUNK) await this.upsert(rows.slice(i, i + CHUNK));
    } catch (err) {
      // Keep what could not be written (newer announces win) so an outage loses nothing.
      for (const row of rows) if (!this.pending.has(row.id)) this.pending.set(row.id, row);
      throw err;
    }
    if (this.snapshot) {
      for (const row of rows) {
        const known = this.snapshot.get(row.id);
        if (!known) this.sortedIds = undefined;
        this.snapshot.set(row.id, { ...toCached(row), lastCheckin: known?.lastCheckin ?? null });
      }
    }
    return rows.length;
  }

  private async upsert(rows: Pending[]): Promise<void> {
    const mysql = this.deps.sequelize.getDialect() === 'mysql';
    const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
    const conflict = mysql
      ? `ON DUPLICATE KEY UPDATE ${UPDATED.map((c) => `${c} = VALUES(${c})`).join(', ')}`
      : `ON CONFLICT (id) DO UPDATE SET ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}`;
    await this.deps.sequelize.query(
      `INSERT INTO discovered_nodes (${COLUMNS.join(', ')}) VALUES ${rows.map(() => tuple).join(', ')} ${conflict}`,
      {
        replacements: rows.flatMap((r) => [
          r.id,
          r.kind,
          r.name,
          r.model,
          r.version,
          r.address,
          r.port,
          r.central,
          r.lastSeen,
          r.createdAt,
        ]),
      },
    );
  }

  /** Nodes heard within `timeoutS` (PROTOCOL §1 offline rule), in id order. */
  async listOnline(timeoutS: number): Promise<DiscoveryNode[]> {
    return JSON.parse(await this.onlineJson(timeoutS)) as DiscoveryNode[];
  }

  /** The same list as a JSON array, assembled from per-node pieces made when a node changes. */
  async onlineJson(timeoutS: number): Promise<string> {
    const age = performance.now() - this.snapshotAt;
    if (!this.snapshot || age > STALE_MS) await this.refresh();
    else if (age > FRESH_MS) this.refresh().catch(() => undefined);
    const snapshot = this.snapshot!;
    this.sortedIds ??= [...snapshot.keys()].sort();
    const since = this.deps.clock.now().getTime() - timeoutS * 1000;
    const parts: string[] = [];
    for (const id of this.sortedIds) {
      const n = snapshot.get(id)!;
      if (n.lastSeen.getTime() >= since) parts.push(entryJson(n));
    }
    return `[${parts.join(',')}]`;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const startedAt = performance.now();
      const rows = await this.deps.sequelize.query<NodeRowRaw>(
        'SELECT id, kind, name, model, version, address, port, central, last_seen, last_checkin FROM discovered_nodes',
        { type: QueryTypes.SELECT },
      );
      const next = new Map<string, Cached>();
      for (const r of rows) {
        const read: Cached = {
          ...toCached({ ...r, port: Number(r.port), lastSeen: new Date(r.last_seen) }),
          lastCheckin: r.last_checkin === null ? null : new Date(r.last_checkin),
        };
        const known = this.snapshot?.get(r.id);
        // An unchanged node keeps its entry, and with it the JSON already made for it.
        next.set(r.id, known && sameNode(known, read) ? known : read);
      }
      // What this process wrote while the read ran is newer than what the read returned — and a
      // node first written then is missing from the read altogether (rows are never deleted).
      for (const [id, n] of this.snapshot ?? []) {
        const read = next.get(id);
        if (!read) next.set(id, n);
        else if (n.lastSeen > read.lastSeen) {
          next.set(id, { ...n, lastCheckin: read.lastCheckin ?? n.lastCheckin });
        }
      }
      this.snapshot = next;
      this.snapshotAt = startedAt;
      this.sortedIds = undefined;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  async findOnline(ids: string[], timeoutS: number) {
    const since = new Date(this.deps.clock.now().getTime() - timeoutS * 1000);
    return this.deps.models.DiscoveredNode.findAll({
      where: { id: { [Op.in]: ids }, lastSeen: { [Op.gte]: since } },
    });
  }

  /**
   * Replaces the node's token: the previous one stops working at once. `organizationId` (of
   * the administrator who configured it) is where people enrolled through that token land.
   */
  async setToken(id: string, token: string, organizationId?: string): Promise<void> {
    await this.deps.models.DiscoveredNode.update(
      {
        tokenHash: hashToken(token),
        tokenIssuedAt: this.deps.clock.now(),
        ...(organizationId !== undefined && { organizationId }),
      },
      { where: { id } },
    );
  }

  /** Puts back the token a terminal kept because it refused a push. */
  async restoreToken(
    id: string,
    previous: {
      tokenHash: string | null;
      tokenIssuedAt: Date | null;
      organizationId: string | null;
    },
  ): Promise<void> {
    await this.deps.models.DiscoveredNode.update(previous, { where: { id } });
  }

  /** Records a check-in; false for an unknown or revoked token or another terminal's id. */
  async checkin(id: string, token: string): Promise<boolean> {
    const at = this.deps.clock.now();
    const [count] = await this.deps.models.DiscoveredNode.update(
      { lastCheckin: at },
      { where: { id, tokenHash: hashToken(token) } },
    );
    const cached = this.snapshot?.get(id);
    if (count === 1 && cached) {
      cached.lastCheckin = at;
      cached.json = undefined;
    }
    return count === 1;
  }
}

function sameNode(a: Cached, b: Cached): boolean {
  return (
    a.lastSeen.getTime() === b.lastSeen.getTime() &&
    (a.lastCheckin?.getTime() ?? null) === (b.lastCheckin?.getTime() ?? null) &&
    a.address === b.address &&
    a.port === b.port &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.model === b.model &&
    a.version === b.version &&
    a.central === b.central
  );
}

function toCached(
  r: Omit<Pending, 'createdAt' | 'kind'> & { kind: string },
): Omit<Cached, 'lastCheckin'> {
  return {
    id: r.id,
    kind: r.kind as DiscoveryNode['kind'],
    name: r.name,
    model: r.model,
    version: r.version,
    address: r.address,
    port: r.port,
    configUrl: `http://${r.address.includes(':') ? `[${r.address}]` : r.address}:${r.port}/api/config`,
    central: r.central,
    lastSeen: r.lastSeen,
  };
}
