import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './mariadb-instance.js';
import { waitFor } from './wait.js';

export const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MAIN = `${SERVER_ROOT}dist/platform/main.js`;
export const ADMIN_CLI = `${SERVER_ROOT}dist/platform/cli/admin.js`;

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
  return waitFor(
    async () => (await (await fetch(`${url}/api/heartbeat`)).json()) as { state: number },
    (body) => body.state === 1,
    { ms, what: 'a state 1 heartbeat', everyMs: 100, tolerateErrors: true },
  );
}

/** The pid listening on TCP `port` as `ss` (iproute2) reports it; null when `ss` cannot tell. */
function listenerPid(port: number): number | undefined | null {
  const ss = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  if (ss.error || ss.status !== 0) return null;
  const pid = /pid=(\d+)/.exec(ss.stdout);
  return pid ? Number(pid[1]) : undefined;
}

/** The port a spawned server was given was taken before it could listen there. */
export class PortTaken extends Error {}

/**
 * waitForHeartbeat for a server this test spawned: an answer counts once `proc` itself listens
 * on the port. A port from freePort() can be taken by a server of a suite running beside this
 * one before the child binds it; the child then exits (EADDRINUSE) while the other server
 * answers the heartbeat, and the test goes on against a server that is not its own.
 */
export async function waitForOwnHeartbeat(
  proc: Spawned,
  url: string,
  ms: number,
): Promise<{ state: number }> {
  const port = Number(new URL(url).port);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      const output = proc.stdout() + proc.stderr();
      if (output.includes('EADDRINUSE')) throw new PortTaken(`port ${port} was taken meanwhile`);
      const how = proc.child.exitCode ?? proc.child.signalCode;
      throw new Error(`the server exited (${how}) before answering: ${output.slice(-2000)}`);
    }
    const pid = listenerPid(port);
    if (pid === proc.child.pid || pid === null) {
      return waitForHeartbeat(url, Math.max(1, deadline - Date.now()));
    }
    await sleep(100);
  }
  throw new Error(`the server did not listen on ${port} within ${ms} ms`);
}

/**
 * Spawns the built server on a free port (its HTTP_PORT) and waits for its own heartbeat;
 * on another port when the first was taken meanwhile.
 */
export async function spawnServer(
  env: Record<string, string>,
  ms = 60_000,
): Promise<{ proc: Spawned; url: string }> {
  for (let tries = 1; ; tries += 1) {
    const port = await freePort();
    const proc = spawnNode(MAIN, [], { ...env, HTTP_PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForOwnHeartbeat(proc, url, ms);
      return { proc, url };
    } catch (err) {
      // A child that never answered is not left running past its test.
      if (proc.child.exitCode === null && proc.child.signalCode === null)
        proc.child.kill('SIGKILL');
      if (!(err instanceof PortTaken) || tries === 3) throw err;
    }
  }
}
