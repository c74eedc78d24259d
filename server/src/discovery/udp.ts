import dgram from 'node:dgram';

export interface Datagram {
  payload: Buffer;
  address: string;
  port: number;
}

/** The UDP socket behind the discovery worker; tests may pass their own. */
export interface UdpTransport {
  bind(port: number, address: string): Promise<void>;
  onMessage(handler: (d: Datagram) => void): void;
  onError(handler: (err: Error) => void): void;
  send(payload: Buffer, port: number, address: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real UDP socket with address reuse (the desktop console may listen on the same port on the
 * same laptop) and broadcast enabled after bind, as Node requires.
 */
export function createUdpTransport(): UdpTransport {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  let bound = false;
  return {
    bind: (port, address) =>
      new Promise((resolve, reject) => {
        const fail = (err: Error) => reject(err);
        socket.once('error', fail);
        socket.bind(port, address, () => {
          socket.off('error', fail);
          socket.setBroadcast(true);
          try {
            socket.setRecvBufferSize(4 * 1024 * 1024);
          } catch {
            // The kernel caps it (net.core.rmem_max); the default still works.
          }
          bound = true;
          resolve();
        });
      }),
    onMessage: (handler) =>
      socket.on('message', (payload, rinfo) =>
        handler({ payload, address: rinfo.address, port: rinfo.port }),
      ),
    onError: (handler) => socket.on('error', handler),
    send: (payload, port, address) =>
      new Promise((resolve, reject) =>
        socket.send(payload, port, address, (err) => (err ? reject(err) : resolve())),
      ),
    close: () =>
      new Promise((resolve) => {
        if (!bound) {
          try {
            socket.close();
          } catch {
            // never bound
          }
          resolve();
          return;
        }
        bound = false;
        socket.close(() => resolve());
      }),
  };
}
