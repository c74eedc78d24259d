/** Child processes of the test run: logged to a file, stopped in teardown, never left behind. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import net from 'node:net';

const running = new Set<ChildProcess>();

// Last resort if a worker exits without its teardown (crash, Ctrl-C): signal what is still up.
process.once('exit', () => {
  for (const child of running) signalGroup(child, 'SIGTERM');
});

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // Each child leads its own process group (detached), so nginx workers go with their master.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

export interface ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** The last lines it wrote, for error messages. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): ManagedProcess {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const recent: string[] = [];
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);

  const record = (chunk: Buffer): void => {
    log.write(chunk);
    recent.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    if (recent.length > 200) recent.splice(0, recent.length - 200);
  };
  child.stdout?.on('data', record);
  child.stderr?.on('data', record);

  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => {
      recent.push(`[${name}] could not start: ${error.message}`);
      done = true;
      running.delete(child);
      log.end();
      resolve('spawn-error');
    });
    child.once('exit', (code, signal) => {
      done = true;
      running.delete(child);
      log.end();
      resolve(code !== null ? `exit code ${code}` : `signal ${signal ?? '?'}`);
    });
  });

  return {
    name,
    logFile: options.logFile,
    exited,
    hasExited: () => done,
    tail: (lines = 40) => recent.slice(-lines).join('\n'),
    async stop(graceMs = 5_000) {
      if (done) return;
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Stragglers of the group (nginx workers) after the leader is gone.
      signalGroup(child, 'SIGKILL');
    },
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
/** Whether `port` can be bound on 127.0.0.1 right now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1: one the system picks, or, with `SVC_TEST_PORTS=41100-41199`,
 * one of that range (engineers sharing a machine each keep to their own range).
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.SVC_TEST_PORTS ?? '');
  if (range !== null) {
    const low = Number(range[1]);
    const size = Number(range[2]) - low + 1;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const port = low + ((start + i) % size);
      if (await canBind(port)) return port;
    }
    throw new Error(`no free port in SVC_TEST_PORTS=${process.env.SVC_TEST_PORTS}`);
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not get a free port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * Polls `check` until it returns true; fails early when `proc` exits and after `timeoutMs`.
 * This is readiness polling of a starting service, not a fixed wait in a test.
 */
export async function waitUntilReady(
  what: string,
  check: () => Promise<boolean>,
  proc: ManagedProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(
        `${what} exited before it was ready (${await proc.exited}). Log ${proc.logFile}:\n${proc.tail()}`,
      );
    }
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(
    `${what} was not ready after ${timeoutMs} ms${lastError ? ` (last error: ${lastError})` : ''}. ` +
      `Log ${proc.logFile}:\n${proc.tail()}`,
  );
}
