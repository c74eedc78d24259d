// GET /api/heartbeat of a real svc_server process against a bare Express 5 "hello" handler,
// measured in the same run with the same client, so the ratio does not depend on the machine.
// The client is wrk (C, one thread): a Node client saturates before either server on two cores,
// which made the bare handler client-bound and the ratio look better than it was.
// Beside the plain heartbeat (answered ahead of Express), the same against the general request
// path every other route takes: the heartbeat as nginx forwards it (X-Forwarded-For), a public
// route (GET /api/auth/csrf) and a session route (GET /api/auth/me with its cookie).
//   node bench/heartbeat.mjs                                   # SQLite, 3 rounds of 8 s each
//   SVC_TEST_MYSQL_HOST=127.0.0.1 node bench/heartbeat.mjs --db mysql --seconds 8 --rounds 3
//   node bench/heartbeat.mjs --routes heartbeat,proxied       # a subset
// Goal: heartbeat requests/s at least 0.8 of the bare handler's, by either path.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, flags, freePort } from './lib.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = flags();
const DB = args.db ?? 'sqlite';
const SECONDS = Number(args.seconds ?? 8);
const ROUNDS = Number(args.rounds ?? 3);
const CONNECTIONS = Number(args.connections ?? 32);
const ROUTES = (args.routes ?? 'heartbeat,proxied,csrf,me').split(',');

/** A bare Express 5 app answering one small JSON body: the baseline. */
async function startBare() {
  const port = await freePort();
  const code = `
    const express = require('express');
    const app = express();
    app.get('/hello', (_req, res) => { res.json({ state: 1 }); });
    app.listen(${port}, '127.0.0.1', () => process.stdout.write('up\\n'));`;
  const child = spawn(process.execPath, ['-e', code], {
    cwd: path.join(ROOT, 'server'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return {
    url: `http://127.0.0.1:${port}/hello`,
    pid: child.pid,
    stop: () => child.kill('SIGTERM'),
  };
}

/**
 * Requests/s, p99, and the server's CPU microseconds per request: on a shared machine the client
 * and other processes take CPU unevenly, and CPU per request is the server's own cost.
 */
async function load(url, pid, seconds = SECONDS, headers = {}) {
  const cpuBefore = cpuSeconds(pid);
  const { stdout } = await promisify(execFile)('wrk', [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    url,
  ]);
  const cpu = cpuSeconds(pid) - cpuBefore;
  const total = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p99 = /\s99%\s+([\d.]+\w+)/.exec(stdout)?.[1] ?? '?';
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  // A loaded machine may let a request pass wrk's timeout: counted, not fatal; refusals are.
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+)/.exec(stdout);
  const failed = errors ? Number(errors[1]) + Number(errors[2]) + Number(errors[3]) : 0;
  if (bad || failed > 0 || !(total > 0)) {
    throw new Error(`${url}: ${bad ?? 0} non-2xx answers, ${failed} connect/read/write errors`);
  }
  return { rps, p99, cpuUs: (cpu * 1e6) / total };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-heartbeat-'));
// Production log level: the heartbeat must be cheap as deployed.
const server = await startServer({
  ROOT,
  DB,
  dataDir,
  name: 'heartbeat',
  env: { LOG_LEVEL: 'info' },
});
const bare = await startBare();
try {
  const session = ROUTES.includes('me') ? await adminSession(server.base, server.password) : null;
  const targets = {
    heartbeat: { label: 'heartbeat', path: '/api/heartbeat' },
    // As svc_web's nginx forwards a monitor's poll from the LAN: the proxy speaks for the
    // client, so the general path answers (Express decides whether to believe it).
    proxied: {
      label: 'heartbeat via proxy',
      path: '/api/heartbeat',
      headers: { 'X-Forwarded-For': '10.1.2.3', 'X-Forwarded-Proto': 'http' },
    },
    csrf: { label: 'GET /api/auth/csrf', path: '/api/auth/csrf' },
    me: {
      label: 'GET /api/auth/me (session)',
      path: '/api/auth/me',
      headers: session ? { Cookie: session.headers().cookie } : {},
    },
  };
  const run = (t, seconds) => load(`${server.base}${t.path}`, server.pid, seconds, t.headers);
  // Warm both (JIT, connection pools) before measuring.
  await load(bare.url, bare.pid, 2);
  for (const name of ROUTES) await run(targets[name], 2);
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of ROUTES) {
      const b = await load(bare.url, bare.pid);
      await sleep(200);
      const h = await run(targets[name]);
      rows.push({
        round,
        name,
        bare: b,
        route: h,
        ratio: h.rps / b.rps,
        cpuRatio: b.cpuUs / h.cpuUs,
      });
      await sleep(200);
    }
  }
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `svc_server routes vs bare Express 5 hello (${DB}, wrk, ${CONNECTIONS} connections, ${SECONDS} s each)`,
  );
  for (const r of rows) {
    console.log(
      `round ${r.round} ${targets[r.name].label}: bare ${fmt(r.bare.rps)} req/s ` +
        `(p99 ${r.bare.p99}, ${r.bare.cpuUs.toFixed(0)} µs CPU/req), svc ${fmt(r.route.rps)} req/s ` +
        `(p99 ${r.route.p99}, ${r.route.cpuUs.toFixed(0)} µs CPU/req), ` +
        `ratio ${r.ratio.toFixed(2)}, CPU ratio ${r.cpuRatio.toFixed(2)}`,
    );
  }
  console.log("median per route (CPU ratio: bare CPU/req over the route's):");
  for (const name of ROUTES) {
    const mine = rows.filter((r) => r.name === name);
    console.log(
      `  ${targets[name].label}: ratio ${median(mine.map((r) => r.ratio)).toFixed(2)}, ` +
        `${median(mine.map((r) => r.route.cpuUs)).toFixed(0)} µs CPU/req against ` +
        `${median(mine.map((r) => r.bare.cpuUs)).toFixed(0)}, CPU ratio ` +
        `${median(mine.map((r) => r.cpuRatio)).toFixed(2)}` +
        (targets[name].path === '/api/heartbeat' ? ' (goal: ratio at least 0.8)' : ''),
    );
  }
} finally {
  bare.stop();
  await server.stop();
  if (DB === 'mysql') await dropDatabase(server.db);
  await rm(dataDir, { recursive: true, force: true });
}
