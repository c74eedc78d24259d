#!/usr/bin/env node
// Discovery benchmark (issue 3): N simulated terminals announcing every 10 s against a real
// svc_server process. Prints the server's CPU share, datagrams dropped, and the latency of
// GET /api/discovery/nodes with N nodes online — each next to a baseline measured in the same
// run (an idle server's CPU; GET /api/heartbeat latency).
//
//   node bench/discovery.mjs [--terminals 10000] [--seconds 60] [--db sqlite|mysql]
//   (--db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD; needs `npm run build`.)
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { flags, freePort, percentiles } from './lib.mjs';

const args = flags();
const TERMINALS = Number(args.terminals ?? 10_000);
const SECONDS = Number(args.seconds ?? 60);
const DB = args.db ?? 'sqlite';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLK_TCK = 100;

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
}

async function json(url) {
  const res = await fetch(url);
  return res.json();
}

async function latencies(url, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const res = await fetch(url);
    await res.arrayBuffer();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return percentiles(out);
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const httpPort = await freePort();
  const udpPort = await freePort();
  const env = {
    PATH: process.env.PATH,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(httpPort),
    DATA_DIR: dataDir,
    SVC_PUSH_WORKER: '0',
    SVC_DISCOVERY_WORKER: '1',
    DISCOVERY_PORT: String(udpPort),
    DISCOVERY_HOST: '192.0.2.10',
    LOG_LEVEL: 'warn',
    ADMIN_INITIAL_PASSWORD: 'bench-only-password-0',
  };
  if (DB === 'mysql') {
    Object.assign(env, {
      DB_HOST: process.env.SVC_TEST_MYSQL_HOST ?? '127.0.0.1',
      DB_PORT: process.env.SVC_TEST_MYSQL_PORT ?? '3306',
      DB_USER: process.env.SVC_TEST_MYSQL_USER ?? 'root',
      DB_PASSWORD: process.env.SVC_TEST_MYSQL_PASSWORD ?? '',
      DB_DATABASE: `svc_bench_${process.pid}`,
    });
  }
  const server = spawn(process.execPath, [path.join(ROOT, 'server/dist/platform/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${httpPort}`;
  for (;;) {
    try {
      if ((await json(`${base}/api/heartbeat`)).state === 1) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }

  // Baseline: the same server idle for a tenth of the run.
  const idleSeconds = Math.max(5, SECONDS / 10);
  const idle0 = cpuSeconds(server.pid);
  await sleep(idleSeconds * 1000);
  const idleShare = (cpuSeconds(server.pid) - idle0) / idleSeconds;

  const socket = dgram.createSocket('udp4');
  await new Promise((r) => socket.bind(0, '127.0.0.1', r));
  const payloads = Array.from({ length: TERMINALS }, (_, i) =>
    Buffer.from(
      JSON.stringify({
        svc: 'discovery',
        v: 1,
        type: 'announce',
        id: `BENCH-${i}`,
        kind: i % 2 ? 'display' : 'enrollment',
        name: `Terminal ${i}`,
        model: 'H1',
        version: '2.3.0',
        port: i % 2 ? 8181 : 8182,
        central: '',
      }),
    ),
  );
  const before = (await json(`${base}/api/heartbeat`)).discovery.counts.received;
  const rate = TERMINALS / 10; // every terminal once per 10 s
  let sent = 0;
  const start = Date.now();
  const cpu0 = cpuSeconds(server.pid);
  let busyShare;
  // CPU is measured over the first half (the datagram load alone); the list's latency is
  // sampled in the second half, while the load goes on.
  setTimeout(
    () => {
      busyShare = (cpuSeconds(server.pid) - cpu0) / ((Date.now() - start) / 1000);
    },
    (SECONDS * 1000) / 2 - 50,
  );
  // While the load runs (second half, all nodes online), sample the list's latency too.
  const underLoad = [];
  const sampler = (async () => {
    await sleep((SECONDS * 1000) / 2);
    while (Date.now() - start < SECONDS * 1000 - 500) {
      const t = process.hrtime.bigint();
      await (await fetch(`${base}/api/discovery/nodes`)).arrayBuffer();
      underLoad.push(Number(process.hrtime.bigint() - t) / 1e6);
      await sleep(300);
    }
  })();
  // Sends in 10 ms slices so the load is even, like terminals with jittered timers.
  while (Date.now() - start < SECONDS * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    while (sent < due) {
      socket.send(payloads[sent % TERMINALS], udpPort, '127.0.0.1');
      sent++;
    }
    await sleep(10);
  }
  const elapsed = (Date.now() - start) / 1000;
  await sampler;
  underLoad.sort((a, b) => a - b);
  await sleep(1500);
  const received = (await json(`${base}/api/heartbeat`)).discovery.counts.received - before;
  socket.close();

  const online = (await json(`${base}/api/discovery/nodes`)).length;
  const nodes = await latencies(`${base}/api/discovery/nodes`, 100);
  const heartbeat = await latencies(`${base}/api/heartbeat`, 100);
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  if (DB === 'mysql') {
    const mysql = await import('mysql2/promise');
    const conn = await mysql.createConnection({
      host: env.DB_HOST,
      port: Number(env.DB_PORT),
      user: env.DB_USER,
      password: env.DB_PASSWORD,
    });
    await conn.query(`DROP DATABASE IF EXISTS \`${env.DB_DATABASE}\``);
    await conn.end();
  }

  const f = (n) => n.toFixed(1);
  console.log(
    `discovery bench (${DB}): ${TERMINALS} terminals, ${f(sent / elapsed)} datagrams/s for ${f(elapsed)} s`,
  );
  console.log(
    `  server CPU under the datagram load (first half): ${f(busyShare * 100)} % of one core (idle baseline ${f(idleShare * 100)} %, ratio ${f(busyShare / Math.max(idleShare, 0.001))}x)  goal < 10 %`,
  );
  console.log(`  datagrams: sent ${sent}, received ${received}, dropped ${sent - received}`);
  console.log(`  nodes online: ${online}`);
  const q = (p) => underLoad[Math.min(underLoad.length - 1, Math.floor(underLoad.length * p))];
  console.log(
    `  GET /api/discovery/nodes during the load (${underLoad.length} samples): p50 ${f(q(0.5))} ms, p95 ${f(q(0.95))} ms`,
  );
  console.log(
    `  GET /api/discovery/nodes after the load: p50 ${f(nodes.p50)} ms, p95 ${f(nodes.p95)} ms, max ${f(nodes.max)} ms  goal p95 < 50 ms`,
  );
  console.log(
    `  GET /api/heartbeat (baseline): p50 ${f(heartbeat.p50)} ms, p95 ${f(heartbeat.p95)} ms; nodes/heartbeat p95 ratio ${f(nodes.p95 / heartbeat.p95)}x`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
