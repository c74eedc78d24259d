import dgram from 'node:dgram';

// Node only (`@svc/shared/udp`, not the package's main entry, which browsers load): the one UDP
// socket of the console and the simulator.

export interface Endpoint {
  address: string;
  port: number;
}

export interface UdpOptions {
  /** SO_REUSEADDR (default on): a console, a central service and simulated terminals on one
   * host can all listen on the discovery port, and each receives a broadcast. */
  reuseAddr?: boolean;
  /** Turn broadcast on as soon as the socket is bound (it cannot be before). */
  broadcast?: boolean;
}

/** The little of a UDP socket that callers need; `openNodeUdpSocket` is the real one. */
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

/** A node:dgram UDP/IPv4 socket. */
export function openNodeUdpSocket(options: UdpOptions = {}): DatagramSocket {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: options.reuseAddr ?? true });
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
          if (options.broadcast === true) socket.setBroadcast(true);
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
