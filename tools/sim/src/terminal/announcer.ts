import { encodeDatagram, parseDatagram } from '@svc/shared';
import type { AnnounceDatagram } from '@svc/shared';
import type { Cancel, SimDeps } from '../deps.js';
import type { DatagramSocket, Endpoint } from '../infra/udp.js';

export interface AnnounceRecord {
  time: string;
  /** `address:port` of every broadcast target that took the datagram. */
  sent: string[];
  /** Targets that failed, with the reason (e.g. ENETUNREACH). */
  errors: Record<string, string>;
}

export interface CentralHeard {
  time: string;
  url: string;
  name: string;
  /** `address:port` the datagram came from. */
  from: string;
}

export interface AnnouncerOptions {
  nodeId: string;
  bindAddress: string;
  discoveryPort: number;
  broadcastAddresses: string[];
  /** 0 disables the periodic announce (boot, probe and config-change announces remain). */
  intervalMs: number;
  jitterMs: number;
  listenForProbes: boolean;
  /** The announce to send, built fresh each time (the saved central URL may have changed). */
  datagram: () => AnnounceDatagram;
  muted: () => boolean;
}

export interface Announcer {
  announceNow(): Promise<void>;
  lastAnnounce(): AnnounceRecord | null;
  lastCentralHeard(): CentralHeard | null;
  /** Datagrams heard and dropped as invalid (PROTOCOL §1: counted, never fatal). */
  dropped(): number;
  stop(): Promise<void>;
}

/** The delay before the next periodic announce: interval ± jitter, from a uniform [0,1) draw. */
export function nextAnnounceDelay(intervalMs: number, jitterMs: number, draw: number): number {
  return Math.max(0, Math.round(intervalMs + (draw * 2 - 1) * jitterMs));
}

const at = (endpoint: Endpoint): string => `${endpoint.address}:${endpoint.port}`;

/**
 * Announces a terminal on UDP (PROTOCOL §1). Announces leave from a socket on the terminal's own
 * address and an ephemeral port, so the central service's unicast reply reaches this terminal
 * even when several share an address; probes are heard on the discovery port with SO_REUSEADDR.
 */
export async function startAnnouncer(options: AnnouncerOptions, deps: SimDeps): Promise<Announcer> {
  const sockets: DatagramSocket[] = [];
  let last: AnnounceRecord | null = null;
  let central: CentralHeard | null = null;
  let dropped = 0;
  let timer: Cancel | undefined;
  let stopped = false;

  const onDatagram = (payload: Buffer, from: Endpoint): void => {
    const parsed = parseDatagram(payload);
    if (!parsed.ok) {
      dropped += 1;
      return;
    }
    const datagram = parsed.datagram;
    if (datagram.type === 'central') {
      central = {
        time: deps.clock.now().toISOString(),
        url: datagram.url,
        name: datagram.name,
        from: at(from),
      };
      deps.onEvent({
        type: 'central-heard',
        node: options.nodeId,
        url: datagram.url,
        from: at(from),
      });
    } else if (datagram.type === 'probe') {
      deps.onEvent({ type: 'probe', node: options.nodeId, from: at(from) });
      void announceNow();
    }
  };

  const openSocket = async (port: number, address: string, reuseAddr: boolean) => {
    const socket = deps.openUdp({ reuseAddr });
    socket.onError((error) =>
      deps.onEvent({ type: 'warning', node: options.nodeId, message: `udp: ${error.message}` }),
    );
    socket.onMessage(onDatagram);
    sockets.push(socket);
    await socket.bind(port, address);
    return socket;
  };

  // A saved central URL can be longer than a datagram allows (1024 bytes): then the announce
  // goes out without `central`, which the protocol allows, rather than not at all.
  const encode = (): Buffer => {
    const datagram = options.datagram();
    try {
      return encodeDatagram(datagram);
    } catch (error) {
      if (!(error instanceof RangeError) || datagram.central === undefined) throw error;
      const rest = { ...datagram };
      delete rest.central;
      deps.onEvent({
        type: 'warning',
        node: options.nodeId,
        message: 'the saved central URL does not fit in an announce; sent without it',
      });
      return encodeDatagram(rest);
    }
  };

  /** Sends one announce to every target; never rejects (failures are recorded). */
  async function announceNow(): Promise<void> {
    if (stopped || options.muted()) return;
    const record: AnnounceRecord = { time: deps.clock.now().toISOString(), sent: [], errors: {} };
    let payload: Buffer;
    try {
      payload = encode();
    } catch (error) {
      record.errors['(encode)'] = String(error);
      last = record;
      deps.onEvent({ type: 'announce', node: options.nodeId, targets: [], error: String(error) });
      return;
    }
    await Promise.all(
      options.broadcastAddresses.map(async (address) => {
        const target = `${address}:${options.discoveryPort}`;
        try {
          await sender.send(payload, options.discoveryPort, address);
          record.sent.push(target);
        } catch (error) {
          record.errors[target] = (error as NodeJS.ErrnoException).code ?? String(error);
        }
      }),
    );
    last = record;
    const failures = Object.entries(record.errors).map(([target, code]) => `${target} ${code}`);
    deps.onEvent({
      type: 'announce',
      node: options.nodeId,
      targets: record.sent,
      ...(failures.length ? { error: failures.join(', ') } : {}),
    });
  }

  const scheduleNext = (): void => {
    if (stopped || options.intervalMs <= 0) return;
    const delay = nextAnnounceDelay(options.intervalMs, options.jitterMs, deps.random());
    timer = deps.clock.schedule(delay, () => {
      void announceNow().finally(scheduleNext);
    });
  };

  const closeAll = () => Promise.all(sockets.map((socket) => socket.close()));
  let sender: DatagramSocket;
  try {
    sender = await openSocket(0, options.bindAddress, false);
    if (options.listenForProbes) await openSocket(options.discoveryPort, '0.0.0.0', true);
  } catch (error) {
    await closeAll();
    throw error;
  }

  await announceNow();
  scheduleNext();

  return {
    announceNow,
    lastAnnounce: () => last,
    lastCentralHeard: () => central,
    dropped: () => dropped,
    async stop() {
      stopped = true;
      timer?.cancel();
      await closeAll();
    },
  };
}
