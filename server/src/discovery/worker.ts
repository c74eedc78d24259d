import {
  DropReason,
  SERVICE_NAME,
  encodeDatagram,
  parseDatagram,
  type ServiceWarning,
} from '@svc/shared';
import type { AuditLog } from '../audit/audit.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { Job } from '../platform/jobs/registry.js';
import { advertisedUrl, type AddressConfig, type HostInfo } from './address.js';
import type { NodeList, Recorded } from './node-list.js';
import {
  ANNOUNCE_REPLIES_PER_S,
  PROBE_ANSWERS_PER_S,
  PerKeyInterval,
  TokenBucket,
} from './reply-limits.js';
import type { Datagram, UdpTransport } from './udp.js';

/** Announces of new ids dropped because DISCOVERY_MAX_NODES nodes are known. */
const NODE_LIMIT = 'node_limit';
export type WorkerDropReason = DropReason | typeof NODE_LIMIT;

export interface DiscoveryCounts {
  received: number;
  announces: number;
  probes: number;
  centralsHeard: number;
  dropped: Record<WorkerDropReason, number>;
  /** Announces refused because their id is online at another address. */
  conflicts: number;
  /** Nodes that moved after their old address was silent for DISCOVERY_TIMEOUT. */
  moves: number;
  replies: number;
  repliesSuppressed: number;
  /** Replies left out because the service-wide rate for probes or announces was reached. */
  repliesRateLimited: number;
  notAdvertised: number;
}

export interface DiscoveryWorkerDeps {
  config: AddressConfig & { port: number; timeoutS: number };
  clock: Clock;
  logger: Logger;
  store: NodeList;
  audit: AuditLog;
  host: HostInfo;
  createTransport: () => UdpTransport;
  flushEveryMs?: number;
  rebindEveryMs?: number;
  announceRepliesPerS?: number;
}

const emptyDrops = (): Record<WorkerDropReason, number> =>
  Object.fromEntries([...Object.values(DropReason), NODE_LIMIT].map((r) => [r, 0])) as Record<
    WorkerDropReason,
    number
  >;
/** One audit entry per node and kind of event per minute: a flood must not flood the log. */
const AUDIT_EVERY_MS = 60_000;

/**
 * Listens on UDP `DISCOVERY_PORT`: records announces, answers each node with the central URL
 * at most once per 5 s, counts everything it drops. A socket error is logged, never fatal; a
 * port that cannot be bound is retried and reported in the heartbeat.
 */
export class DiscoveryWorker implements Job {
  readonly name = 'discovery';
  readonly counts: DiscoveryCounts = {
    received: 0,
    announces: 0,
    probes: 0,
    centralsHeard: 0,
    dropped: emptyDrops(),
    conflicts: 0,
    moves: 0,
    replies: 0,
    repliesSuppressed: 0,
    repliesRateLimited: 0,
    notAdvertised: 0,
  };
  private transport: UdpTransport | undefined;
  private listening = false;
  private accepting = false;
  private bindError: ServiceWarning | undefined;
  private addressProblem: ServiceWarning | undefined;
  private readonly lastReply = new PerKeyInterval();
  private readonly probeAnswers = new TokenBucket(PROBE_ANSWERS_PER_S);
  private readonly announceReplies: TokenBucket;
  private readonly lastWarn = new Map<string, number>();
  private readonly lastAudit = new Map<string, number>();
  private lastPrune = -Infinity;
  private pruneWanted = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private rebindTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** The encoded reply per advertised URL: the same bytes go to every terminal of a subnet. */
  private readonly replyPayloads = new Map<string, Buffer>();

  constructor(private readonly deps: DiscoveryWorkerDeps) {
    this.announceReplies = new TokenBucket(deps.announceRepliesPerS ?? ANNOUNCE_REPLIES_PER_S);
  }

  async start(): Promise<void> {
    this.accepting = true;
    await this.bind();
    const every = this.deps.flushEveryMs ?? 500;
    const loop = () => {
      this.flushing = this.flushNow().finally(() => {
        this.flushing = undefined;
        if (this.accepting) this.flushTimer = setTimeout(loop, every).unref();
      });
    };
    this.flushTimer = setTimeout(loop, every).unref();
  }

  /** Stops handling datagrams and writes what is pending; the socket closes in closeSocket(). */
  async stop(): Promise<void> {
    this.accepting = false;
    clearTimeout(this.flushTimer);
    clearTimeout(this.rebindTimer);
    await this.flushing;
    await this.flushNow();
  }

  async closeSocket(): Promise<void> {
    this.listening = false;
    await this.transport?.close();
    this.transport = undefined;
  }

  async flushNow(): Promise<void> {
    try {
      await this.deps.store.flush();
      // At the limit, the places of ids silent for the timeout are freed, at most once per
      // timeout (a prune finds nothing newer anyway).
      const now = this.deps.clock.now().getTime();
      if (this.pruneWanted && now - this.lastPrune >= this.deps.config.timeoutS * 1000) {
        this.pruneWanted = false;
        this.lastPrune = now;
        const pruned = await this.deps.store.prune();
        if (pruned > 0) this.deps.logger.info({ pruned }, 'forgot silent unconfigured nodes');
      }
    } catch (err) {
      this.warnOnce(
        'flush',
        'could not write discovered nodes; keeping them for the next try',
        err,
      );
    }
  }

  info() {
    const advertised = advertisedUrl(this.deps.config, this.deps.host);
    return {
      enabled: true,
      listening: this.listening,
      port: this.deps.config.port,
      // The English for API users; `…Detail` the code and values a client words (issue 34).
      ...(this.bindError && {
        bindError: this.bindError.message,
        bindErrorDetail: this.bindError,
      }),
      advertisedUrl: advertised.ok ? advertised.url : null,
      ...(this.addressProblem && {
        addressProblem: this.addressProblem.message,
        addressProblemDetail: this.addressProblem,
      }),
      counts: this.counts,
    };
  }

  private async bind(): Promise<void> {
    const transport = this.deps.createTransport();
    transport.onError((err) => this.warnOnce('socket', 'discovery socket error', err));
    transport.onMessage((d) => this.handle(d));
    try {
      // Every node already known first: an announce is judged against the node it names.
      await this.deps.store.load();
      await transport.bind(this.deps.config.port, '0.0.0.0');
      this.transport = transport;
      this.listening = true;
      this.bindError = undefined;
      this.deps.logger.info({ port: this.deps.config.port }, 'discovery listening');
    } catch (err) {
      await transport.close();
      const error = (err as Error).message;
      this.bindError = this.deps.store.loaded
        ? {
            code: 'discovery_bind_failed',
            params: { port: String(this.deps.config.port), error },
            message: `UDP ${this.deps.config.port} could not be bound: ${error}`,
          }
        : {
            code: 'discovery_nodes_unreadable',
            params: { error },
            message: `the discovered nodes could not be read: ${error}`,
          };
      this.deps.logger.error({ port: this.deps.config.port, err }, this.bindError.message);
      if (this.accepting) {
        this.rebindTimer = setTimeout(
          () => void this.bind(),
          this.deps.rebindEveryMs ?? 10_000,
        ).unref();
      }
    }
  }

  /** Exposed for tests; the socket calls it for every datagram. */
  handle(d: Datagram): void {
    if (!this.accepting) return;
    this.counts.received++;
    const parsed = parseDatagram(d.payload);
    if (!parsed.ok) {
      this.counts.dropped[parsed.reason]++;
      this.warnOnce(`drop:${parsed.reason}`, 'dropped a discovery datagram', undefined, {
        reason: parsed.reason,
        from: d.address,
        detail: parsed.detail,
      });
      return;
    }
    const datagram = parsed.datagram;
    if (datagram.type === 'probe') {
      this.counts.probes++;
      // The console probing the LAN hears which central service answers (it picks the address
      // from these), once per 5 s per source address (not address and port: every port of one
      // host is the same prober, and a spoofed source must not buy an answer per port), within
      // a service-wide rate. A space keeps the key apart from node ids, which cannot contain one.
      this.reply(`probe ${d.address}`, d, this.deps.clock.now().getTime(), this.probeAnswers);
      return;
    }
    if (datagram.type === 'central') {
      this.counts.centralsHeard++;
      this.warnOnce(
        `central:${d.address}`,
        'another central service answers on this LAN',
        undefined,
        {
          from: d.address,
          url: datagram.url,
        },
      );
      return;
    }
    this.counts.announces++;
    const now = this.deps.clock.now();
    const recorded = this.deps.store.record(datagram, d.address, now);
    if (recorded.kind === 'limit') {
      this.counts.dropped[NODE_LIMIT]++;
      this.pruneWanted = true;
      this.warnOnce(
        'limit',
        'dropped announces of new nodes: DISCOVERY_MAX_NODES reached',
        undefined,
        {
          max: this.deps.store.maxNodes,
          from: d.address,
        },
      );
      return;
    }
    this.noteClaim(datagram.id, recorded, d.address);
    this.reply(datagram.id, d, now.getTime(), this.announceReplies);
  }

  /** Conflicts and moves are audited (at most once a minute per node and kind). */
  private noteClaim(id: string, recorded: Exclude<Recorded, { kind: 'limit' }>, from: string) {
    if (recorded.kind === 'conflict') this.counts.conflicts++;
    else if (recorded.kind === 'moved') this.counts.moves++;
    else return;
    if (recorded.kind === 'conflict' && !recorded.fresh) return;
    const key = `${recorded.kind}:${id}`;
    const now = performance.now();
    if (now - (this.lastAudit.get(key) ?? -Infinity) < AUDIT_EVERY_MS) return;
    if (this.lastAudit.size > 10_000) this.lastAudit.clear();
    this.lastAudit.set(key, now);
    const summary =
      recorded.kind === 'conflict'
        ? `announce from ${recorded.conflict.address}:${recorded.conflict.port} refused: terminal ${id} is online at another address; an administrator must choose`
        : `terminal ${id} moved from ${recorded.from.address}:${recorded.from.port} (silent since ${recorded.silentSince.toISOString()})`;
    this.deps.audit
      .record({
        action: recorded.kind === 'conflict' ? 'discovery.conflict' : 'discovery.move',
        outcome: recorded.kind === 'conflict' ? 'denied' : 'success',
        organizationId: recorded.organizationId,
        actor: { id: null, name: `announce from ${from}` },
        target: { type: 'terminal', id },
        ip: from,
        summary,
        message:
          recorded.kind === 'conflict'
            ? {
                code: 'terminal_conflict',
                params: {
                  id,
                  address: `${recorded.conflict.address}:${recorded.conflict.port}`,
                },
              }
            : {
                code: 'terminal_moved_itself',
                params: {
                  id,
                  from: `${recorded.from.address}:${recorded.from.port}`,
                  silentSince: recorded.silentSince.toISOString(),
                },
              },
      })
      .catch((err: unknown) => this.warnOnce('audit', 'could not audit a discovery event', err));
  }

  /**
   * A `central` datagram to the sender; `id`: the node (or prober) it is rate-limited by,
   * `global`: the service-wide rate of this kind of answer. The answer is the protocol's fixed
   * datagram and nothing of the request is echoed, so it never grows with what was sent.
   */
  private reply(id: string, d: Datagram, nowMs: number, global: TokenBucket): void {
    if (!this.lastReply.due(id, nowMs)) {
      this.counts.repliesSuppressed++;
      return;
    }
    const advertised = advertisedUrl(this.deps.config, this.deps.host, d.address);
    if (!advertised.ok) {
      this.counts.notAdvertised++;
      this.addressProblem = advertised.detail;
      this.warnOnce('address', 'not advertising a central address', undefined, {
        problem: advertised.problem,
      });
      return;
    }
    this.addressProblem = undefined;
    if (!global.take()) {
      this.counts.repliesRateLimited++;
      this.warnOnce('rate', 'discovery answers over the service-wide rate left out', undefined, {
        from: d.address,
      });
      return;
    }
    this.lastReply.answered(id, nowMs);
    let payload = this.replyPayloads.get(advertised.url);
    if (!payload) {
      payload = encodeDatagram({
        svc: 'discovery',
        v: 1,
        type: 'central',
        url: advertised.url,
        name: SERVICE_NAME,
      });
      this.replyPayloads.set(advertised.url, payload);
    }
    this.counts.replies++;
    this.transport?.send(payload, d.port, d.address).catch((err: unknown) => {
      this.warnOnce('send', 'could not answer a terminal', err, { to: d.address });
    });
  }

  /** One log line per kind of trouble per minute: a flood of junk must not flood the log. */
  private warnOnce(key: string, msg: string, err?: unknown, extra: Record<string, unknown> = {}) {
    const now = Date.now();
    if (now - (this.lastWarn.get(key) ?? 0) < 60_000) return;
    this.lastWarn.set(key, now);
    this.deps.logger.warn(
      { ...extra, ...(err !== undefined && { err }), counts: this.counts.dropped },
      msg,
    );
  }
}
