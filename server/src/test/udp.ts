import dgram from 'node:dgram';

/** A UDP socket standing in for a terminal: sends datagrams, collects the answers. */
export async function udpPeer() {
  const socket = dgram.createSocket('udp4');
  const received: { payload: Buffer; address: string; port: number }[] = [];
  socket.on('message', (payload, r) =>
    received.push({ payload, address: r.address, port: r.port }),
  );
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    received,
    port: socket.address().port,
    send: (payload: Buffer | string, port: number, address = '127.0.0.1') =>
      new Promise<void>((resolve, reject) =>
        socket.send(payload, port, address, (err) => (err ? reject(err) : resolve())),
      ),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
