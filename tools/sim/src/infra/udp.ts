import dgram from 'node:dgram';

export interface Endpoint {
  address: string;
  port: number;
}

export interface UdpOptions {
  /** SO_REUSEADDR: several listeners on one port all receive a broadcast. */
  reuseAddr: boolean;
}

/** The little of a UDP socket a simulated terminal needs; `openNodeUdpSocket` is the real one. */
export interface DatagramSocket {
  /** Binds, turns broadcast on (only possible once bound), and resolves once listening. */
  bind(port: number, address: string): Promise<void>;
  send(payload: Uint8Array, port: number, address: string): Promise<void>;
  local(): Endpoint;
  close(): Promise<void>;
  onMessage(listener: (payload: Buffer, from: Endpoint) => void): void;
  onError(listener: (error: Error) => void): void;
}

export type OpenUdpSocket = (options: UdpOptions) => DatagramSocket;

export function openNodeUdpSocket(options: UdpOptions): DatagramSocket {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: options.reuseAddr });
  const errorListeners: ((error: Error) => void)[] = [];
  let closed = false;
  // An 'error' event without a listener would throw and take the whole process down.
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
          socket.setBroadcast(true);
          resolve();
        };
        socket.once('error', onError);
        socket.once('listening', onListening);
        socket.bind({ port, address });
      });
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
