import { createHash } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { AnnounceDatagram, DiscoveryNode } from '@svc/shared';
import type { Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';
import { isLive, judge, normalizeIp, type Claim, type Endpoint } from './identity/claims.js';
import {
  stateOf,
  toCached,
  type Cached,
  type NodeState,
  changedAt,
  entryJson,
  sameNode,
} from './store/rows.js';
import { NodeRows, type TokenColumns } from './store/nodes.js';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

interface Pending extends NodeState {
  createdAt: Date;
}

/** What one announce did: its claim, or dropped because the node limit is reached. */
export type Recorded = (Claim & { organizationId: string | null }) | { kind: 'limit' };

const CHUNK = 500;
/**
 * The list is re-read from the database this often, for what other server processes wrote;
 * this process's own writes reach the snapshot at once. (Reading ten thousand rows blocks the
 * event loop for tens of milliseconds, so not on every request.)
 */
const FRESH_MS = 15_000;
/** Older than this, a request waits for a re-read instead of serving the previous one. */
const STALE_MS = 60_000;

export interface NodeListDeps {
  sequelize: Sequelize;
  models: Models;
  clock: Clock;
  /** DISCOVERY_TIMEOUT in seconds: the offline rule, and the silence after which a node moves. */
  timeoutS: number;
  /** DISCOVERY_MAX_NODES: announces of new ids beyond it are dropped. */
  maxNodes: number;
}

/**
 * Discovered nodes live in the database, so every server process sees one list. Announces are
 * judged against what this process knows (identity/claims.ts) and written behind in batches
 * with one multi-row upsert: at a thousand datagrams a second, a write per datagram would cost
 * more than everything else the worker does. Reads come from a snapshot of the table,
 * refreshed now and then and updated at once by this process's own writes. Both are bounded
 * by DISCOVERY_MAX_NODES, so a flood of invented ids cannot grow them.
 */
export class NodeList {
  private pending = new Map<string, Pending>();
  /** Ids in `pending` (or being written) that the snapshot does not hold yet. */
  private newPending = 0;
  private newInFlight = 0;
  private snapshot: Map<string, Cached> | undefined;
  private snapshotAt = 0;
  private refreshing: Promise<void> | undefined;
  private sortedIds: string[] | undefined;
  private flushing: Promise<unknown> = Promise.resolve();
  private readonly rows: NodeRows;

  constructor(private readonly deps: NodeListDeps) {
    this.rows = new NodeRows(deps);
  }

  get maxNodes(): number {
    return this.deps.maxNodes;
  }

  /** Nodes known to this process: in the table, or heard and about to be written. */
  get nodeCount(): number {
    return (this.snapshot?.size ?? 0) + this.newPending + this.newInFlight;
  }

  get loaded(): boolean {
    return this.snapshot !== undefined;
  }

  /** Reads the table once, so announces are judged against every node already known. */
  async load(): Promise<void> {
    if (!this.snapshot) await this.refresh();
  }

  private view(id: string): Pending | Cached | undefined {
    return this.pending.get(id) ?? this.snapshot?.get(id);
  }

  record(announce: AnnounceDatagram, sourceIp: string, at: Date): Recorded {
    const from = { address: normalizeIp(sourceIp), port: announce.port };
    const known = this.view(announce.id);
    if (!known && this.nodeCount >= this.deps.maxNodes) return { kind: 'limit' };
    const claim = judge(known, from, at, this.deps.timeoutS * 1000);
    const organizationId = this.snapshot?.get(announce.id)?.organizationId ?? null;
    if (claim.kind === 'conflict') {
      // The node stays as it is; only its claimant is written.
      this.pending.set(announce.id, {
        ...stateOf(known!),
        createdAt: at,
        conflict: claim.conflict,
      });
      return { ...claim, organizationId };
    }
    if (!known) this.newPending++;
    this.pending.set(announce.id, {
      id: announce.id,
      kind: announce.kind,
      name: announce.name ?? '',
      model: announce.model ?? '',
      version: announce.version ?? '',
      ...from,
      central: announce.central ?? '',
      lastSeen: at,
      createdAt: at,
      conflict: claim.kind === 'refresh' ? claim.conflict : null,
    });
    return { ...claim, organizationId };
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
    this.newInFlight = this.newPending;
    this.newPending = 0;
    try {
      for (let i = 0; i < rows.length; i += CHUNK) await this.rows.upsert(rows.slice(i, i + CHUNK));
    } catch (err) {
      // Keep what could not be written (newer announces win) so an outage loses nothing.
      for (const row of rows) {
        if (this.pending.has(row.id)) continue;
        this.pending.set(row.id, row);
        if (!this.snapshot?.has(row.id)) this.newPending++;
      }
      throw err;
    } finally {
      this.newInFlight = 0;
    }
    if (this.snapshot) {
      for (const row of rows) {
        const known = this.snapshot.get(row.id);
        if (!known) this.sortedIds = undefined;
        this.snapshot.set(row.id, {
          ...stateOf(row),
          lastCheckin: known?.lastCheckin ?? null,
          organizationId: known?.organizationId ?? null,
        });
      }
    }
    return rows.length;
  }

  /** Nodes heard within `timeoutS` (PROTOCOL §1 offline rule), in id order. */
  async listOnline(timeoutS: number, visibleTo?: string): Promise<DiscoveryNode[]> {
    return JSON.parse(await this.onlineJson(timeoutS, visibleTo)) as DiscoveryNode[];
  }

  /**
   * The same list as a JSON array, assembled from per-node pieces made when a node changes.
   * `visibleTo` (an organization id) keeps only that organization's nodes and unclaimed ones.
   */
  async onlineJson(timeoutS: number, visibleTo?: string): Promise<string> {
    const age = performance.now() - this.snapshotAt;
    if (!this.snapshot || age > STALE_MS) await this.refresh();
    else if (age > FRESH_MS) this.refresh().catch(() => undefined);
    const snapshot = this.snapshot!;
    this.sortedIds ??= [...snapshot.keys()].sort();
    const since = this.deps.clock.now().getTime() - timeoutS * 1000;
    const parts: string[] = [];
    for (const id of this.sortedIds) {
      const n = snapshot.get(id)!;
      if (visibleTo !== undefined && n.organizationId !== null && n.organizationId !== visibleTo) {
        continue;
      }
      if (n.lastSeen.getTime() >= since) parts.push(entryJson(n, since));
    }
    return `[${parts.join(',')}]`;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const startedAt = performance.now();
      const rows = await this.rows.selectAll();
      const next = new Map<string, Cached>();
      for (const r of rows) {
        // Read before prune() deleted it, and not heard since.
        if (this.pruned.has(r.id) && !this.snapshot?.has(r.id)) continue;
        const read = toCached(r);
        const known = this.snapshot?.get(r.id);
        // An unchanged node keeps its entry, and with it the JSON already made for it.
        next.set(r.id, known && sameNode(known, read) ? known : read);
      }
      // What this process wrote while the read ran is newer than what the read returned — and a
      // node first written then is missing from the read altogether.
      for (const [id, n] of this.snapshot ?? []) {
        const read = next.get(id);
        if (!read) next.set(id, n);
        else if (changedAt(n) > changedAt(read)) {
          next.set(id, { ...n, lastCheckin: read.lastCheckin ?? n.lastCheckin });
        }
      }
      if (startedAt > this.prunedAt) this.pruned.clear();
      this.snapshot = next;
      this.snapshotAt = startedAt;
      this.sortedIds = undefined;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Ids forgotten by prune(), until a re-read that began after it shows they are gone. */
  private readonly pruned = new Set<string>();
  private prunedAt = -Infinity;

  /**
   * Forgets nodes that never received a token and were not heard for DISCOVERY_TIMEOUT, so
   * ids invented by a flood free their places under the limit once it stops.
   */
  async prune(): Promise<number> {
    await this.load();
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.timeoutS * 1000);
    const ids = (await this.rows.staleUntokened(cutoff)).filter((id) => !this.pending.has(id));
    // Out of the snapshot first, so new ids are accepted at once. An id heard again meanwhile
    // has a newer last_seen than the cutoff, which keeps its row.
    for (const id of ids) {
      this.pruned.add(id);
      if (this.snapshot?.delete(id)) this.sortedIds = undefined;
    }
    for (let i = 0; i < ids.length; i += CHUNK) {
      await this.rows.deleteStale(ids.slice(i, i + CHUNK), cutoff);
    }
    this.prunedAt = performance.now();
    return ids.length;
  }

  /**
   * An administrator removed a terminal silent since before `silentBefore`: its row goes, and
   * with it its token and enrollment spaces. False when there is no such row (or it was heard
   * meanwhile). It is listed again only when it announces itself again.
   */
  async forget(id: string, silentBefore: Date): Promise<boolean> {
    await this.load();
    const removed = await this.rows.deleteSilent(id, silentBefore);
    if (removed === 0) return false;
    // As prune() does: a re-read that began before the delete must not bring it back.
    this.pruned.add(id);
    if (this.snapshot?.delete(id)) this.sortedIds = undefined;
    this.prunedAt = performance.now();
    return true;
  }

  async findOnline(ids: string[], timeoutS: number) {
    const since = new Date(this.deps.clock.now().getTime() - timeoutS * 1000);
    return this.rows.heardSince(ids, since);
  }

  /**
   * Replaces the node's token: the previous one stops working at once. The token works only
   * from `address` (default: the node's address now), the address it is pushed to.
   * `organizationId` (of the administrator who configured it) is where people enrolled
   * through that token land.
   */
  async setToken(
    id: string,
    token: string,
    organizationId?: string,
    address?: string,
  ): Promise<void> {
    const to = address ?? (await this.rows.addressOf(id)) ?? '';
    await this.rows.setToken(id, {
      tokenHash: hashToken(token),
      tokenIssuedAt: this.deps.clock.now(),
      tokenAddress: normalizeIp(to),
      ...(organizationId !== undefined && { organizationId }),
    });
    const cached = this.snapshot?.get(id);
    if (cached && organizationId !== undefined) cached.organizationId = organizationId;
  }

  /** Puts back the token a terminal kept because it refused a push. */
  async restoreToken(id: string, previous: Required<TokenColumns>): Promise<void> {
    await this.rows.setToken(id, previous);
  }

  /**
   * Records a check-in; false for an unknown or revoked token, another terminal's id, or a
   * source address other than the one the token was pushed to.
   */
  async checkin(id: string, token: string, sourceIp: string): Promise<boolean> {
    const at = this.deps.clock.now();
    // Found first, then stamped: MySQL counts an update that changes nothing (two check-ins
    // in one millisecond) as no row at all.
    const node = await this.findByToken(token, sourceIp);
    if (node?.id !== id) return false;
    await this.rows.stampCheckin(id, at);
    const cached = this.snapshot?.get(id);
    if (cached) {
      cached.lastCheckin = at;
      cached.json = undefined;
    }
    return true;
  }

  /** The terminal a token belongs to, when it is used from the address it was pushed to. */
  findByToken(token: string, sourceIp: string) {
    return this.rows.findByToken(hashToken(token), normalizeIp(sourceIp));
  }

  /**
   * An administrator's word that the node moved to its claimant `to` (an ip, or ip and port):
   * the node is accepted there at once. Its token stays bound to the old address.
   */
  async confirmMove(
    id: string,
    to: { address: string; port?: number },
  ): Promise<
    | { ok: true; from: Endpoint; node: NodeState }
    | { ok: false; reason: 'unknown' | 'not_claimant'; node?: NodeState }
  > {
    await this.load();
    const known = this.view(id);
    if (!known) return { ok: false, reason: 'unknown' };
    const wanted = { address: normalizeIp(to.address), port: to.port };
    const matches = (e: Endpoint) =>
      e.address === wanted.address && (wanted.port === undefined || e.port === wanted.port);
    const since = this.deps.clock.now().getTime() - this.deps.timeoutS * 1000;
    const claimant = isLive(known.conflict, since) ? known.conflict : null;
    if (!claimant || !matches(claimant)) return { ok: false, reason: 'not_claimant', node: known };
    const from = { address: known.address, port: known.port };
    const moved: Pending = {
      ...stateOf(known),
      createdAt: known.lastSeen,
      address: claimant.address,
      port: claimant.port,
      lastSeen: claimant.lastHeard,
      conflict: null,
    };
    // Pending first: every announce from here on is judged against the new endpoint.
    this.pending.set(id, moved);
    await this.flush();
    return { ok: true, from, node: moved };
  }
}
