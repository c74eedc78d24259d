import dgram from 'node:dgram';
import { parseDatagram } from '@svc/shared';
import type { DiscoveryDatagram } from '@svc/shared';

export interface Heard {
  datagram: DiscoveryDatagram;
  from: { address: string; port: number };
}

/**
 * A UDP socket on 0.0.0.0 with SO_REUSEADDR and an ephemeral port, standing in for the central
 * service's discovery listener: the port it gets is the discovery port of the test.
 */
export async function openListener(): Promise<{
  port: number;
  heard: Heard[];
  invalid: number;
  send(payload: Uint8Array | object, address: string, port: number): Promise<void>;
  close(): Promise<void>;
}> {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  const state = { heard: [] as Heard[], invalid: 0 };
  socket.on('message', (payload, rinfo) => {
    const parsed = parseDatagram(payload);
    if (parsed.ok) {
      state.heard.push({
        datagram: parsed.datagram,
        from: { address: rinfo.address, port: rinfo.port },
      });
    } else {
      state.invalid += 1;
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
  socket.setBroadcast(true);
  return {
    port: socket.address().port,
    get heard() {
      return state.heard;
    },
    get invalid() {
      return state.invalid;
    },
    send(payload, address, port) {
      const bytes = payload instanceof Uint8Array ? payload : Buffer.from(JSON.stringify(payload));
      return new Promise((resolve, reject) =>
        socket.send(bytes, port, address, (error) => (error ? reject(error) : resolve())),
      );
    },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** Announces heard from one terminal. */
export function announcesOf(heard: Heard[], id: string): Heard[] {
  return heard.filter((h) => h.datagram.type === 'announce' && h.datagram.id === id);
}
