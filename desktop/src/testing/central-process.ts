import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CSRF_HEADER, SERVICE_NAME } from '@svc/shared';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
export const serverEntry = path.join(repoRoot, 'server', 'dist', 'platform', 'main.js');

/** Why the real central service cannot be started here, or undefined when it can. */
export function centralUnavailable(): string | undefined {
  return existsSync(serverEntry)
    ? undefined
    : `svc_server is not built (${serverEntry}): run npm run build -w @svc/shared -w @svc/server`;
}

/**
 * The UDP discovery port of a test run: `SVC_TEST_DISCOVERY_PORT` (engineers sharing a machine
 * each keep to their own), else one derived from the process id above `base`.
 */
export function testDiscoveryPort(base: number): number {
  const given = Number(process.env.SVC_TEST_DISCOVERY_PORT);
  return Number.isInteger(given) && given > 0 ? given : base + (process.pid % 20000);
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free a moment ago: one the system picks, or, with `SVC_TEST_PORTS=8610-8619`, one
 * of that range (engineers sharing a machine each keep to their own range).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.SVC_TEST_PORTS ?? '');
  if (range) {
    const low = Number(range[1]);
    const size = Number(range[2]) - low + 1;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i += 1) {
      const port = low + ((start + i) % size);
      if (await canBind(port, host)) return port;
    }
    throw new Error(`no free port in SVC_TEST_PORTS=${process.env.SVC_TEST_PORTS}`);
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

/** A port nothing listens on (free a moment ago): where a terminal that is off would answer. */
export const closedPort = (): Promise<number> => freePort();

export interface CentralProcess {
  url: string;
  username: string;
  /** The administrator's password after the first-start change; generated for this run only. */
  password: string;
  log(): string;
  stop(): Promise<void>;
}

async function changeInitialPassword(url: string, username: string, from: string, to: string) {
  const jar = new Map<string, string>();
  const call = async (method: string, p: string, body?: unknown, csrf?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (csrf) headers[CSRF_HEADER] = csrf;
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url + p, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  const { token } = (await (await call('GET', '/api/auth/csrf')).json()) as { token: string };
  const login = await call('POST', '/api/auth/login', { username, password: from }, token);
  if (login.status !== 200) throw new Error(`admin login failed: ${login.status}`);
  const changed = await call(
    'POST',
    '/api/auth/password',
    { currentPassword: from, newPassword: to },
    token,
  );
  if (changed.status !== 204)
    throw new Error(`password change failed: ${changed.status} ${await changed.text()}`);
}

/**
 * A random password the server takes: none holding the user name or the service's name, which
 * it refuses (a base64url run holds "svc" or "admin" now and then: a failed start once).
 */
function randomPassword(): string {
  for (;;) {
    const password = randomBytes(18).toString('base64url');
    if (![SERVICE_NAME, 'admin'].some((word) => password.toLowerCase().includes(word))) {
      return password;
    }
  }
}

/** Starts svc_server (built) as its own process on SQLite in a fresh data dir. */
export async function startCentral(options: {
  host?: string;
  discoveryPort: number;
  /** Where it listens (default 127.0.0.1); its URL uses `host`. */
  bind?: string;
  env?: Record<string, string>;
}): Promise<CentralProcess> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-console-central-'));
  const host = options.host ?? '127.0.0.1';
  const port = await freePort(options.bind ?? host);
  const url = `http://${host}:${port}`;
  const initial = randomBytes(15).toString('base64url');
  const logFile = path.join(dir, 'server.log');
  const fd = openSync(logFile, 'a');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HTTP_HOST: options.bind ?? host,
    HTTP_PORT: String(port),
    DATA_DIR: path.join(dir, 'data'),
    ADMIN_INITIAL_PASSWORD: initial,
    DISCOVERY_PORT: String(options.discoveryPort),
    DISCOVERY_HTTP_BASE_URL: url,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const child: ChildProcess = spawn(process.execPath, [serverEntry], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', fd, fd],
  });
  const log = () => readFileSync(logFile, 'utf8').slice(-4000);
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`svc_server exited (${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${url}/api/heartbeat`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet: readiness polling of a starting service
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`svc_server was not ready in 60 s:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  const password = randomPassword();
  try {
    await changeInitialPassword(url, 'admin', initial, password);
  } catch (error) {
    // A start that fails leaves no server behind (one outlived today's failed suite).
    await stop();
    throw error;
  }
  return { url, username: 'admin', password, log, stop };
}
