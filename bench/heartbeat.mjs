// GET /api/heartbeat of a real svc_server process against a bare Express 5 "hello" handler,
// measured in the same run with the same client, so the ratio does not depend on the machine.
//   node bench/heartbeat.mjs                                   # SQLite, 3 rounds of 8 s each
//   SVC_TEST_MYSQL_HOST=127.0.0.1 node bench/heartbeat.mjs --db mysql --seconds 8 --rounds 3
// Goal (issue 25): heartbeat requests/s at least 0.8 of the bare handler's.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { cpuSeconds, flags, freePort } from './lib.mjs';
import { dropDatabase, startServer } from './server-process.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = flags();
const DB = args.db ?? 'sqlite';
const SECONDS = Number(args.seconds ?? 8);
const ROUNDS = Number(args.rounds ?? 3);
const CONNECTIONS = Number(args.connections ?? 32);

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
async function load(url, pid) {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  const cpu = cpuSeconds(pid) - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuUs: (cpu * 1e6) / result.requests.total,
  };
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
  // Warm both (JIT, connection pools) before measuring.
  await autocannon({ url: bare.url, connections: CONNECTIONS, duration: 2 });
  await autocannon({ url: `${server.base}/api/heartbeat`, connections: CONNECTIONS, duration: 2 });
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const b = await load(bare.url, bare.pid);
    await sleep(200);
    const h = await load(`${server.base}/api/heartbeat`, server.pid);
    rows.push({ round, bare: b, heartbeat: h, ratio: h.rps / b.rps, cpuRatio: b.cpuUs / h.cpuUs });
    await sleep(200);
  }
  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  console.log(
    `heartbeat vs bare Express 5 hello (${DB}, ${CONNECTIONS} connections, ${SECONDS} s each)`,
  );
  for (const r of rows) {
    console.log(
      `round ${r.round}: bare ${fmt(r.bare.rps)} req/s (p99 ${r.bare.p99} ms, ` +
        `${r.bare.cpuUs.toFixed(0)} µs CPU/req), heartbeat ${fmt(r.heartbeat.rps)} req/s ` +
        `(p99 ${r.heartbeat.p99} ms, ${r.heartbeat.cpuUs.toFixed(0)} µs CPU/req), ` +
        `ratio ${r.ratio.toFixed(2)}, CPU ratio ${r.cpuRatio.toFixed(2)}`,
    );
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2);
  console.log(
    `median ratio ${median(rows.map((r) => r.ratio))} (goal at least 0.8); ` +
      `median CPU ratio (bare CPU/req over heartbeat CPU/req) ${median(rows.map((r) => r.cpuRatio))}`,
  );
} finally {
  bare.stop();
  await server.stop();
  if (DB === 'mysql') await dropDatabase(server.db);
  await rm(dataDir, { recursive: true, force: true });
}
