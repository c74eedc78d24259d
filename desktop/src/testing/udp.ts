import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';
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

/**
 * Another program holding a UDP port (bound on 0.0.0.0 without SO_REUSEADDR), as a separate
 * process so the OS names it; `release` lets the port go and waits for the process to end.
 */
export async function holdUdpPort(): Promise<{
  child: ChildProcess;
  port: number;
  release: () => Promise<void>;
}> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const s=require('dgram').createSocket('udp4');s.bind(0,'0.0.0.0',()=>console.log(s.address().port));process.stdin.on('data',()=>process.exit(0))",
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    child,
    port: Number(line.toString().trim()),
    release: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end('bye\n');
      await exited;
    },
  };
}
