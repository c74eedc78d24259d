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

const iso = (v: Date | string) => new Date(v).toISOString();

/**
 * Discovered nodes live in the database, so every server process sees one list. Announces are
 * written behind in batches: at a thousand datagrams a second one upsert per datagram would
 * cost more than everything else the worker does.
 */
export class NodeStore {
  private pending = new Map<string, Pending>();

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
  async flush(): Promise<number> {
    if (this.pending.size === 0) return 0;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.deps.models.DiscoveredNode.bulkCreate(rows, {
        updateOnDuplicate: [
          'kind',
          'name',
          'model',
          'version',
          'address',
          'port',
          'central',
          'lastSeen',
        ],
      });
    } catch (err) {
      // Keep what could not be written (newer announces win) so an outage loses nothing.
      for (const row of rows) if (!this.pending.has(row.id)) this.pending.set(row.id, row);
      throw err;
    }
    return rows.length;
  }

  /** Nodes heard within `timeoutS` (PROTOCOL §1 offline rule), in id order. */
  async listOnline(timeoutS: number): Promise<DiscoveryNode[]> {
    const since = new Date(this.deps.clock.now().getTime() - timeoutS * 1000);
    const rows = await this.deps.sequelize.query<NodeRowRaw>(
      'SELECT id, kind, name, model, version, address, port, central, last_seen, last_checkin ' +
        'FROM discovered_nodes WHERE last_seen >= ? ORDER BY id',
      { replacements: [since], type: QueryTypes.SELECT },
    );
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind as DiscoveryNode['kind'],
      name: r.name,
      model: r.model,
      version: r.version,
      address: r.address,
      port: Number(r.port),
      configUrl: `http://${r.address}:${r.port}/api/config`,
      central: r.central,
      lastSeen: iso(r.last_seen),
      lastCheckin: r.last_checkin === null ? null : iso(r.last_checkin),
      online: true,
    }));
  }

  async findOnline(ids: string[], timeoutS: number) {
    const since = new Date(this.deps.clock.now().getTime() - timeoutS * 1000);
    return this.deps.models.DiscoveredNode.findAll({
      where: { id: { [Op.in]: ids }, lastSeen: { [Op.gte]: since } },
    });
  }

  /** Replaces the node's token: the previous one stops working at once. */
  async setToken(id: string, token: string): Promise<void> {
    await this.deps.models.DiscoveredNode.update(
      { tokenHash: hashToken(token), tokenIssuedAt: this.deps.clock.now() },
      { where: { id } },
    );
  }

  /** Records a check-in; false for an unknown or revoked token or another terminal's id. */
  async checkin(id: string, token: string): Promise<boolean> {
    const [count] = await this.deps.models.DiscoveredNode.update(
      { lastCheckin: this.deps.clock.now() },
      { where: { id, tokenHash: hashToken(token) } },
    );
    return count === 1;
  }
}
