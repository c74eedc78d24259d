import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = `${SERVER_ROOT}dist/main.js`;
export const ADMIN_CLI = `${SERVER_ROOT}dist/cli/admin.js`;

export function requireBuild(): void {
  if (!existsSync(MAIN) || !existsSync(ADMIN_CLI)) {
    throw new Error(
      'server/dist is missing: run `npm run build -w @svc/shared -w @svc/server` (npm test does)',
    );
  }
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Runs a built entry point with exactly the given environment (plus PATH). */
export function spawnNode(script: string, args: string[], env: Record<string, string>): Spawned {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

export async function waitForHeartbeat(url: string, ms: number): Promise<{ state: number }> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/heartbeat`);
      const body = (await res.json()) as { state: number };
      if (body.state === 1) return body;
      last = body;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`no state 1 heartbeat within ${ms} ms: ${JSON.stringify(last)}`);
}
