import dgram from 'node:dgram';

export interface Endpoint {
  address: string;
  port: number;
}

/** The little of a UDP socket that the core needs; `openNodeUdpSocket` is the real one. */
export interface DatagramSocket {
  /** Binds and resolves once listening; rejects with the bind error (EADDRINUSE, EACCES, …). */
  bind(port: number, address: string): Promise<void>;
  setBroadcast(enabled: boolean): void;
  send(payload: Uint8Array, port: number, address: string): Promise<void>;
  /** The bound local endpoint. */
  local(): Endpoint;
  close(): Promise<void>;
  onMessage(listener: (payload: Buffer, from: Endpoint) => void): void;
  /** Errors after creation (bind failures included). Having a listener is what keeps them from crashing. */
  onError(listener: (error: Error) => void): void;
}

export type OpenSocket = () => DatagramSocket;

/**
 * A node:dgram UDP/IPv4 socket with SO_REUSEADDR, so the console and a central service on the same
 * laptop can both listen on the discovery port (both receive broadcasts).
 */
export function openNodeUdpSocket(): DatagramSocket {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  const errorListeners: ((error: Error) => void)[] = [];
  let closed = false;
  // Attached at once: an 'error' event without a listener would throw and take the process down.
  socket.on('error', (error) => {
    for (const listener of errorListeners) listener(error);
  });

  return {
    bind(port, address) {
      return new Promise<void>((resolve, reject) => {
        const onError = (error: Error): void => {
          socket.off('listening', onListening);
          reject(error);
        };
        const onListening = (): void => {
          socket.off('error', onError);
          resolve();
        };
        socket.once('error', onError);
        socket.once('listening', onListening);
        socket.bind({ port, address });
      });
    },
    setBroadcast(enabled) {
      socket.setBroadcast(enabled);
    },
    send(payload, port, address) {
      return new Promise<void>((resolve, reject) => {
        socket.send(payload, port, address, (error) => (error ? reject(error) : resolve()));
      });
    },
    local() {
      const { address, port } = socket.address();
      return { address, port };
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        try {
          socket.close(() => resolve());
        } catch {
          // Never bound, or already closed by the runtime: nothing left to release.
          resolve();
        }
      });
    },
    onMessage(listener) {
      socket.on('message', (payload, rinfo) =>
        listener(payload, { address: rinfo.address, port: rinfo.port }),
      );
    },
    onError(listener) {
      errorListeners.push(listener);
    },
  };
}
