import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/testing/central-process.js';
import { LOOPBACK_BROADCAST } from '../../src/testing/sim.js';

const cli = path.resolve(import.meta.dirname, '..', '..', 'dist', 'shell', 'cli.js');

export interface ConsoleProcess {
  /** The one-time URL the console printed. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Runs the browser shell as a technician would (`npm run console`), and reads its URL. */
export async function startConsole(env: Record<string, string>): Promise<ConsoleProcess> {
  // Sessions are kept on disk: each console gets its own place unless a test shares one.
  const stateDir =
    env.CONSOLE_STATE_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'svc-console-state-'));
  // Within the engineer's own ports when given (SVC_TEST_PORTS), else one the system picks.
  const port =
    env.CONSOLE_PORT ?? (process.env.SVC_TEST_PORTS ? String(await freePort()) : undefined);
  const child: ChildProcess = spawn(process.execPath, [cli], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      ...(port !== undefined && { CONSOLE_PORT: port }),
      CONSOLE_STATE_DIR: stateDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the console printed no URL:\n${out}`)),
      20_000,
    );
    const check = () => {
      const m = /^console: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`the console exited (${code}):\n${out}`)));
  });
  return {
    url,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A console listening for terminals on `discoveryPort` and probing on loopback, where the tests'
 * simulated terminals are; `env` adds to that (or overrides it).
 */
export function consoleOn(
  discoveryPort: number,
  env: Record<string, string> = {},
): Promise<ConsoleProcess> {
  return startConsole({
    DISCOVERY_PORT: String(discoveryPort),
    DISCOVERY_PROBE_ADDRESSES: LOOPBACK_BROADCAST,
    ...env,
  });
}
