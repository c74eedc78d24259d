import dgram from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';

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

export async function waitFor<T>(
  fn: () => T | Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(v)}`);
    await sleep(20);
  }
}
