import dgram from 'node:dgram';
import type { DirectoryChange, TerminalDirectory } from '../core/terminal-directory.js';

/** Test helpers over real loopback sockets. */
export async function openSender(): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: 'udp4' });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

export function sendTo(
  socket: dgram.Socket,
  payload: string | Buffer,
  port: number,
  address = '127.0.0.1',
): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.send(payload, port, address, (error) => (error ? reject(error) : resolve())),
  );
}

export function closeSocket(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}

/** Resolves with the first change that matches, or rejects after `timeoutMs`. */
export function nextChange<T extends DirectoryChange['type']>(
  directory: TerminalDirectory,
  type: T,
  timeoutMs = 3000,
): Promise<Extract<DirectoryChange, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no '${type}' change within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = directory.onChange((change) => {
      if (change.type === type) {
        clearTimeout(timer);
        off();
        resolve(change as Extract<DirectoryChange, { type: T }>);
      }
    });
  });
}

export function announce(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    svc: 'discovery',
    v: 1,
    type: 'announce',
    id: 'ENR-0001',
    kind: 'enrollment',
    port: 8182,
    ...fields,
  });
}
