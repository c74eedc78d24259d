// A real svc_server process for a benchmark, on SQLite or MySQL/MariaDB, and an administrator
// session against it (the same steps as the site: CSRF token, sign-in, first password change).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './lib.mjs';

/**
 * Starts svc_server with everything but `env`'s workers off; resolves once it is ready.
 * `database` names an existing MySQL database to reuse; `nodeArgs` go to node (e.g. a profiler).
 */
export async function startServer({
  ROOT,
  DB,
  dataDir,
  name,
  env: extra = {},
  database,
  nodeArgs: given = [],
}) {
  const httpPort = await freePort();
  const password = `bench-${randomUUID()}`;
  const env = {
    PATH: process.env.PATH,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(httpPort),
    DATA_DIR: dataDir,
    SVC_PUSH_WORKER: '0',
    SVC_DISCOVERY_WORKER: '0',
    // Generated photos have no face; bench/faces.mjs turns the check on.
    FACE_CHECK: 'off',
    // SVC_BENCH_SERVER_LOG_LEVEL=info shows the worker's plans and reconciliations in the log.
    LOG_LEVEL: process.env.SVC_BENCH_SERVER_LOG_LEVEL ?? 'warn',
    ADMIN_INITIAL_PASSWORD: password,
    ...extra,
  };
  let db = { dialect: 'sqlite', storage: path.join(dataDir, 'svc.sqlite') };
  if (DB === 'mysql') {
    db = {
      dialect: 'mysql',
      host: process.env.SVC_TEST_MYSQL_HOST ?? '127.0.0.1',
      port: Number(process.env.SVC_TEST_MYSQL_PORT ?? 3306),
      user: process.env.SVC_TEST_MYSQL_USER ?? 'root',
      password: process.env.SVC_TEST_MYSQL_PASSWORD ?? '',
      database: database ?? `svc_bench_${name}_${process.pid}`,
    };
    // A Galera cluster (bench/galera.mjs): DB_HOST names every node; the script's own
    // connections go to the first, the server moves between them as in production.
    const nodes = process.env.SVC_BENCH_DB_NODES?.split(',').map((n) => {
      const [host, port] = n.split(':');
      return { host, port: Number(port) };
    });
    if (nodes?.length) Object.assign(db, { ...nodes[0], nodes });
    Object.assign(env, {
      DB_HOST: nodes?.length ? process.env.SVC_BENCH_DB_NODES : db.host,
      DB_PORT: String(db.port),
      DB_USER: db.user,
      DB_PASSWORD: db.password,
      DB_DATABASE: db.database,
    });
  }
  const nodeArgs = [
    ...given,
    ...(process.env.SVC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ];
  const logTo = process.env.SVC_BENCH_SERVER_LOG;
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(ROOT, 'server/dist/platform/main.js')],
    {
      env,
      cwd: dataDir,
      // Its log (JSON lines) into a file when asked: SVC_BENCH_SERVER_LOG=/tmp/server.log.
      stdio: ['ignore', logTo ? openSync(logTo, 'w') : 'ignore', 'inherit'],
    },
  );
  // A benchmark that fails leaves no server behind.
  process.once('exit', () => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${httpPort}`;
  for (;;) {
    try {
      if ((await (await fetch(`${base}/api/heartbeat`)).json()).state === 1) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error('svc_server exited');
    await sleep(100);
  }
  return {
    base,
    password,
    db,
    env,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

export async function dropDatabase(db) {
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
  });
  await conn.query(`DROP DATABASE IF EXISTS \`${db.database}\``);
  await conn.end();
}

/**
 * Signs in as `admin` and changes the initial password; `json()` calls the API as the site,
 * `password` is the new one (for a browser to sign in with).
 */
export async function adminSession(base, password) {
  const jar = new Map();
  let csrf;
  /** `raw`: a body sent as it is (a Buffer with its `type`, or FormData). */
  const call = async (method, p, body, raw) => {
    const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
    if (body) headers['content-type'] = 'application/json';
    if (raw?.type) headers['content-type'] = raw.type;
    const payload = raw ? raw.body : body && JSON.stringify(body);
    const res = await fetch(base + p, { method, headers, body: payload });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  const json = async (method, p, body, expect = 200) => {
    const res = await call(method, p, body);
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  csrf = (await json('GET', '/api/auth/csrf')).token;
  // Double-submit: the token as a cookie and as a header.
  jar.set('svc_csrf_token', csrf);
  await json('POST', '/api/auth/login', { username: 'admin', password });
  const fresh = `bench quartz lantern ${randomUUID()}`;
  await json('POST', '/api/auth/password', { currentPassword: password, newPassword: fresh }, 204);
  /** A request with a raw body (an image, FormData); the response as fetch gives it. */
  const send = (method, p, body, type) => call(method, p, undefined, { body, type });
  /** The cookies and CSRF header of this session, for a request made with fetch directly. */
  const headers = () => ({
    cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
    'x-csrf-token': csrf,
  });
  return { json, send, headers, password: fresh };
}
