import {
  DEFAULT_DISCOVERY_PORT,
  DEFAULT_DISCOVERY_TIMEOUT_S,
  DropReason,
  encodeDatagram,
  parseDatagram,
  type AnnounceDatagram,
  type CentralDatagram,
  type TerminalKind,
} from '@svc/shared';
import type { Clock, Timer } from './clock.js';
import type { DatagramSocket, Endpoint } from '@svc/shared/udp';

/** A terminal heard on the LAN (PROTOCOL §1 announce). Plain data: it crosses IPC as it is. */
export interface TerminalEntry {
  id: string;
  kind: TerminalKind;
  name: string | null;
  model: string | null;
  version: string | null;
  /** The announce's source IP: the only address trusted for a node. */
  address: string;
  /** The terminal's management HTTP port (from the announce). */
  port: number;
  /** UDP source port of the last announce. */
  sourcePort: number;
  /** `http://<address>:<port>/api/config` (PROTOCOL §1). */
  configUrl: string;
  /** The central URL the terminal has saved: `""` none saved, `null` not reported. */
  central: string | null;
  /** When this terminal (re)appeared in the list, ISO-8601. */
  firstSeen: string;
  /** Its last announce, ISO-8601. */
  lastSeen: string;
  /** Announces heard since it (re)appeared. */
  announces: number;
  /**
   * Another address announcing the same id while this one is online (a cloned id, or a
   * terminal that moved), or null. The entry stays at the address heard first, as the central
   * service's does (PROTOCOL §1).
   */
  conflict: { address: string; port: number; lastSeen: string } | null;
}

/** A central service heard answering on the LAN (PROTOCOL §1 central). */
export interface CentralEntry {
  url: string;
  name: string;
  address: string;
  sourcePort: number;
  lastSeen: string;
}

export type DropCounts = Record<DropReason, number>;

export interface DirectoryStatus {
  listening: boolean;
  /** The bound local endpoint, while listening. */
  local: Endpoint | null;
  /** The last socket error (bind failure, runtime error), or null. */
  lastError: string | null;
}

export interface ProbeOutcome {
  address: string;
  ok: boolean;
  error?: string;
}

export type DirectoryChange =
  | { type: 'terminal-online'; terminal: TerminalEntry }
  | { type: 'terminal-updated'; terminal: TerminalEntry }
  | { type: 'terminal-offline'; terminal: TerminalEntry }
  | { type: 'central'; central: CentralEntry }
  | { type: 'central-offline'; central: CentralEntry }
  | { type: 'dropped'; reason: DropReason; from: Endpoint }
  | { type: 'status'; status: DirectoryStatus };

export interface DirectoryDeps {
  /** A fresh UDP socket (`openNodeUdpSocket` of `@svc/shared/udp`: SO_REUSEADDR, so the console
   * and a central service on one laptop both listen on the discovery port). */
  openSocket: () => DatagramSocket;
  clock: Clock;
  /** Where listener exceptions and socket errors are reported; they never escape. */
  report?: (message: string, error: unknown) => void;
}

export interface DirectoryOptions {
  /** UDP port to listen on and to probe (DISCOVERY_PORT). */
  port?: number;
  bindAddress?: string;
  /** Seconds without an announce before a terminal is offline (DISCOVERY_TIMEOUT). */
  timeoutS?: number;
  /** Where `probe()` sends by default. */
  broadcastAddresses?: readonly string[];
  /** How often offline terminals are swept out of the list. */
  sweepIntervalMs?: number;
}

interface TerminalRecord {
  announce: AnnounceDatagram;
  from: Endpoint;
  firstSeen: number;
  lastSeen: number;
  announces: number;
  claimant: { address: string; port: number; lastSeen: number } | null;
}

interface CentralRecord {
  datagram: CentralDatagram;
  from: Endpoint;
  lastSeen: number;
}

export const DEFAULT_BROADCAST_ADDRESSES: readonly string[] = ['255.255.255.255'];

function emptyDropCounts(): DropCounts {
  const counts = {} as DropCounts;
  for (const reason of Object.values(DropReason)) counts[reason] = 0;
  return counts;
}

function sameClaim(record: TerminalRecord, announce: AnnounceDatagram, from: Endpoint): boolean {
  return record.from.address === from.address && record.announce.port === announce.port;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function message(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * The live list of terminals heard on the discovery port. It listens for PROTOCOL §1 datagrams,
 * keeps announces by terminal id with the datagram's source address, drops anything invalid
 * (counted by reason), applies the offline rule, and can broadcast a probe.
 */
export class TerminalDirectory {
  readonly port: number;
  readonly bindAddress: string;
  readonly timeoutMs: number;
  readonly broadcastAddresses: readonly string[];
  readonly #sweepIntervalMs: number;
  readonly #deps: DirectoryDeps;
  readonly #terminals = new Map<string, TerminalRecord>();
  readonly #centrals = new Map<string, CentralRecord>();
  readonly #listeners = new Set<(change: DirectoryChange) => void>();
  #drops = emptyDropCounts();
  #socket: DatagramSocket | null = null;
  #sweepTimer: Timer | null = null;
  #status: DirectoryStatus = { listening: false, local: null, lastError: null };

  constructor(deps: DirectoryDeps, options: DirectoryOptions = {}) {
    this.#deps = deps;
    this.port = options.port ?? DEFAULT_DISCOVERY_PORT;
    this.bindAddress = options.bindAddress ?? '0.0.0.0';
    this.timeoutMs = (options.timeoutS ?? DEFAULT_DISCOVERY_TIMEOUT_S) * 1000;
    this.broadcastAddresses = options.broadcastAddresses ?? DEFAULT_BROADCAST_ADDRESSES;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 1000;
    if (!Number.isInteger(this.port) || this.port < 0 || this.port > 65535) {
      throw new RangeError(`invalid discovery port ${this.port}`);
    }
    if (!(this.timeoutMs > 0)) throw new RangeError('timeout must be positive');
  }

  /**
   * Binds the discovery port. Rejects (and records the error in `status()`) when it cannot;
   * after a failure it may be called again (the port may have been freed since).
   */
  async start(): Promise<void> {
    if (this.#socket) throw new Error('directory already started');
    const socket = this.#deps.openSocket();
    this.#socket = socket;
    socket.onError((error) => this.#onSocketError(error));
    socket.onMessage((payload, from) => this.#onDatagram(payload, from));
    try {
      await socket.bind(this.port, this.bindAddress);
      socket.setBroadcast(true);
    } catch (error) {
      this.#socket = null;
      await socket.close();
      this.#setStatus({ listening: false, local: null, lastError: message(error) });
      throw error;
    }
    this.#sweepTimer = this.#deps.clock.every(this.#sweepIntervalMs, () => this.sweep());
    this.#setStatus({ listening: true, local: socket.local(), lastError: null });
  }

  /** Stops listening and releases the port; the list is kept as it was. */
  async close(): Promise<void> {
    this.#sweepTimer?.cancel();
    this.#sweepTimer = null;
    const socket = this.#socket;
    this.#socket = null;
    if (!socket) return;
    await socket.close();
    this.#setStatus({ ...this.#status, listening: false, local: null });
  }

  status(): DirectoryStatus {
    return { ...this.#status, local: this.#status.local ? { ...this.#status.local } : null };
  }

  /** Online terminals, sorted by id. */
  list(): TerminalEntry[] {
    this.sweep();
    return [...this.#terminals.values()]
      .map((record) => this.#terminalEntry(record))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  get(id: string): TerminalEntry | undefined {
    this.sweep();
    const record = this.#terminals.get(id);
    return record ? this.#terminalEntry(record) : undefined;
  }

  /** Central services heard recently (same offline rule), sorted by URL. */
  centrals(): CentralEntry[] {
    this.sweep();
    return [...this.#centrals.values()]
      .map((record) => this.#centralEntry(record))
      .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  dropCounts(): DropCounts {
    return { ...this.#drops };
  }

  onChange(listener: (change: DirectoryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Applies the offline rule now: a node silent for longer than the timeout leaves the list. */
  sweep(): void {
    const now = this.#deps.clock.now();
    for (const [id, record] of this.#terminals) {
      if (now - record.lastSeen > this.timeoutMs) {
        this.#terminals.delete(id);
        this.#emit({ type: 'terminal-offline', terminal: this.#terminalEntry(record) });
      }
    }
    for (const [key, record] of this.#centrals) {
      if (now - record.lastSeen > this.timeoutMs) {
        this.#centrals.delete(key);
        this.#emit({ type: 'central-offline', central: this.#centralEntry(record) });
      }
    }
  }

  /** Broadcasts a probe on the discovery port; every terminal that hears it announces at once. */
  async probe(addresses: readonly string[] = this.broadcastAddresses): Promise<ProbeOutcome[]> {
    const socket = this.#socket;
    if (!socket) throw new Error('directory is not listening');
    // The port we listen on (the same as `port`, unless 0 asked for an ephemeral one).
    const port = socket.local().port;
    const payload = encodeDatagram({ svc: 'discovery', v: 1, type: 'probe' });
    return Promise.all(
      addresses.map(async (address): Promise<ProbeOutcome> => {
        try {
          await socket.send(payload, port, address);
          return { address, ok: true };
        } catch (error) {
          return { address, ok: false, error: message(error) };
        }
      }),
    );
  }

  #onDatagram(payload: Uint8Array, from: Endpoint): void {
    const parsed = parseDatagram(payload);
    if (!parsed.ok) {
      this.#drops[parsed.reason] += 1;
      this.#emit({ type: 'dropped', reason: parsed.reason, from });
      return;
    }
    const { datagram } = parsed;
    const now = this.#deps.clock.now();
    switch (datagram.type) {
      case 'announce':
        this.#onAnnounce(datagram, from, now);
        return;
      case 'central': {
        const key = `${from.address}|${datagram.url}`;
        const record: CentralRecord = { datagram, from, lastSeen: now };
        this.#centrals.set(key, record);
        this.#emit({ type: 'central', central: this.#centralEntry(record) });
        return;
      }
      case 'probe':
        // Another console's probe (or our own, looped back): nothing to record.
        return;
    }
  }

  #onAnnounce(announce: AnnounceDatagram, from: Endpoint, now: number): void {
    const existing = this.#terminals.get(announce.id);
    // A record past the timeout that the sweep has not reached yet is offline: this announce
    // brings the terminal back rather than updating a stale entry.
    const stale = existing !== undefined && now - existing.lastSeen > this.timeoutMs;
    if (existing && stale) {
      this.#terminals.delete(announce.id);
      this.#emit({ type: 'terminal-offline', terminal: this.#terminalEntry(existing) });
    }
    const online = existing !== undefined && !stale;
    if (online && !sameClaim(existing, announce, from)) {
      // The same id from another address: a conflict to show, not a move (see `conflict`).
      existing.claimant = { address: from.address, port: announce.port, lastSeen: now };
      this.#emit({ type: 'terminal-updated', terminal: this.#terminalEntry(existing) });
      return;
    }
    const record: TerminalRecord = {
      announce,
      from,
      firstSeen: online ? existing.firstSeen : now,
      lastSeen: now,
      announces: online ? existing.announces + 1 : 1,
      claimant: online ? existing.claimant : null,
    };
    this.#terminals.set(announce.id, record);
    this.#emit({
      type: online ? 'terminal-updated' : 'terminal-online',
      terminal: this.#terminalEntry(record),
    });
  }

  #onSocketError(error: Error): void {
    this.#deps.report?.('discovery socket error', error);
    this.#setStatus({ ...this.#status, lastError: message(error) });
  }

  #setStatus(status: DirectoryStatus): void {
    this.#status = status;
    this.#emit({ type: 'status', status: this.status() });
  }

  #emit(change: DirectoryChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#deps.report?.('directory listener failed', error);
      }
    }
  }

  #terminalEntry(record: TerminalRecord): TerminalEntry {
    const { announce, from } = record;
    return {
      id: announce.id,
      kind: announce.kind,
      name: announce.name ?? null,
      model: announce.model ?? null,
      version: announce.version ?? null,
      address: from.address,
      port: announce.port,
      sourcePort: from.port,
      configUrl: `http://${from.address}:${announce.port}/api/config`,
      central: announce.central ?? null,
      conflict:
        record.claimant && this.#deps.clock.now() - record.claimant.lastSeen <= this.timeoutMs
          ? {
              address: record.claimant.address,
              port: record.claimant.port,
              lastSeen: iso(record.claimant.lastSeen),
            }
          : null,
      firstSeen: iso(record.firstSeen),
      lastSeen: iso(record.lastSeen),
      announces: record.announces,
    };
  }

  #centralEntry(record: CentralRecord): CentralEntry {
    return {
      url: record.datagram.url,
      name: record.datagram.name,
      address: record.from.address,
      sourcePort: record.from.port,
      lastSeen: iso(record.lastSeen),
    };
  }
}
