#!/usr/bin/env node
// Recognition benchmark (issue 5): simulated devices POST recognition events to a real
// svc_server process, which delivers them to a simulated display (PROTOCOL §3 → §4).
// Measures the sustained intake rate (closed loop, as fast as the server accepts), and at a
// fixed offered rate the latency from the device's POST to the display's receipt of that event.
// Same-run baselines: the same POSTs straight to the display simulator without the server, and
// GET /api/heartbeat.
//
//   node bench/recognition.mjs [--db sqlite|mysql] [--rate 2000] [--seconds 20]
//                              [--devices 20] [--concurrency 64]
//   (--db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD; needs `npm run build`.)
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, databaseCpu, flags } from './lib.mjs';
import { nowMs } from './recognition-load.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const DB = args.db ?? 'sqlite';
const RATE = Number(args.rate ?? 2000);
const SECONDS = Number(args.seconds ?? 20);
const DEVICES = Number(args.devices ?? 20);
const CONCURRENCY = Number(args.concurrency ?? 64);
const PEOPLE = 200;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { startTerminal } = await import(path.join(ROOT, 'tools/sim/dist/index.js'));

const quantile = (samples, p) => {
  const s = [...samples].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : NaN;
};
const stats = (samples) => ({
  n: samples.length,
  p50: quantile(samples, 0.5),
  p95: quantile(samples, 0.95),
  p99: quantile(samples, 0.99),
  max: quantile(samples, 1),
});

/**
 * Send and receipt times by eventId (CLOCK_MONOTONIC ms, see recognition-load.mjs): the load
 * generator reports when it sent each accepted event, the display (in this process) when it
 * received it.
 */
const sentAt = new Map();
const failures = new Map();
const shownAt = new Map();
let shownOrder = [];

/**
 * The devices (and the raw baseline's sender) run in a child process with a lean keep-alive
 * HTTP client (recognition-load.mjs), the display in this one: with both in one process the
 * generator's own event loop was a ceiling, and fetch or node:http cost more CPU per request
 * than the server's intake of the event on this 2-core machine.
 */
function startLoad() {
  const proc = fork(path.join(ROOT, 'bench/recognition-load.mjs'), ['--child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  const waiting = new Map();
  let next = 0;
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  proc.on('message', (msg) => {
    if (msg.type === 'ready') ready();
    if (msg.type !== 'done') return;
    waiting.get(msg.id).resolve(msg);
    waiting.delete(msg.id);
  });
  proc.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`load generator exited (${code})`));
  });
  return {
    pid: proc.pid,
    async init(setup) {
      proc.send({ type: 'init', ...setup });
      await isReady;
    },
    /** One phase; records the accepted events' send times and the failures. */
    run(phase) {
      const id = next++;
      return new Promise((resolve, reject) => {
        const resolveWith = (msg) => {
          for (let i = 0; i < msg.sent.length; i += 2) sentAt.set(msg.sent[i], msg.sent[i + 1]);
          for (const [why, count] of Object.entries(msg.failures))
            failures.set(why, (failures.get(why) ?? 0) + count);
          if (msg.skipped)
            console.log(
              `  (open loop at ${phase.rate}/s: ${msg.skipped} sends skipped, >512 in flight)`,
            );
          resolve({ ...msg, ids: msg.sent.filter((_, i) => i % 2 === 0) });
        };
        waiting.set(id, { resolve: resolveWith, reject });
        proc.send({ type: 'run', id, ...phase });
      });
    },
    stop() {
      proc.send({ type: 'stop' });
    },
  };
}

const t0 = performance.now();
const progress = (what) =>
  process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${what}\n`);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-rec-'));
  // --profile DIR: the server writes a V8 CPU profile there when it stops.
  const server = await startServer({
    ROOT,
    DB,
    dataDir,
    name: 'rec',
    nodeArgs: args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [],
  });
  const { base, db } = server;

  const admin = await adminSession(base, server.password);
  const display = await startTerminal(
    {
      id: `DSP-BENCH-${process.pid}`,
      kind: 'display',
      bindAddress: '127.0.0.1',
      httpPort: 0,
      discoveryPort: 9,
      broadcastAddresses: ['127.0.0.1'],
      announceIntervalMs: 0,
      checkinIntervalMs: 0,
      listenForProbes: false,
    },
    {
      onEvent: (e) => {
        if (e.type !== 'panel-event') return;
        shownAt.set(e.eventId, nowMs());
        shownOrder.push(e.eventId);
      },
    },
  );
  const panelUrl = `${display.url}/api/recognition`;
  const space = await admin.json('POST', '/api/spaces', { name: 'Bench hall' }, 201);
  const people = [];
  for (let i = 0; i < PEOPLE; i++) {
    const p = await admin.json(
      'POST',
      '/api/people',
      { name: `Bench Person ${i}`, idNumber: `BENCH-${i}` },
      201,
    );
    people.push(p.id);
  }
  const devices = [];
  for (let i = 0; i < DEVICES; i++) {
    const sn = `BENCH-${i}`;
    const reg = await admin.json(
      'POST',
      '/api/devices',
      { sn, name: `Bench gate ${i}`, baseUrl: 'http://127.0.0.1:9', spaceId: space.id },
      201,
    );
    devices.push({ sn, key: reg.key });
  }
  await admin.json('POST', '/api/panel/route', { mode: 'local', url: panelUrl });
  const load = startLoad();
  await load.init({ base, panelUrl, devices, people, spaceId: space.id });
  const closed = (target, seconds) =>
    load.run({ target, mode: 'closed', seconds, concurrency: CONCURRENCY });
  const open = (target, seconds) => load.run({ target, mode: 'open', seconds, rate: RATE });

  // Warm-up (JIT, connection pools, prepared statements), not counted.
  await closed('server', 2);
  await drain(2000);
  await closed('raw', 1);

  const heartbeat = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await (await fetch(`${base}/api/heartbeat`)).arrayBuffer();
    heartbeat.push(performance.now() - t);
  }

  progress('warmed up');
  const cpuOf = () => ({
    server: cpuSeconds(server.pid),
    db: DB === 'mysql' ? databaseCpu() : 0,
    load: cpuSeconds(load.pid),
    own: cpuSeconds(process.pid),
  });
  const perEvent = (before, n) => {
    const after = cpuOf();
    const us = (k) => ((after[k] - before[k]) / n) * 1e6;
    return { server: us('server'), db: us('db'), load: us('load'), own: us('own') };
  };
  let cpu0 = cpuOf();
  const rawMax = await closed('raw', SECONDS / 2);
  await drain(10_000);
  const rawCpu = perEvent(cpu0, rawMax.ids.length);
  const rawAtRate = await open('raw', SECONDS / 2);
  await drain(10_000);
  const rawLatency = latencies(rawAtRate.ids);

  progress(
    `raw baseline done: max ${rawMax.rate.toFixed(0)}/s, at rate ${rawAtRate.rate.toFixed(0)}/s`,
  );
  cpu0 = cpuOf();
  const intake = await closed('server', SECONDS);
  progress(
    `intake phase done: ${intake.rate.toFixed(0)}/s, failures ${JSON.stringify([...failures])}`,
  );
  const drained = await drain(60_000);
  // CPU per event, intake and delivery together: the figures least moved by a busy machine.
  const cpu = perEvent(cpu0, intake.ids.length);
  const lastShown = Math.max(...intake.ids.map((id) => shownAt.get(id) ?? 0));
  const deliveryRate = intake.ids.length / ((lastShown - intake.startedAt) / 1000);

  progress('drained');
  const atRate = await open('server', SECONDS);
  await drain(60_000);
  progress(`rate phase drained, failures ${JSON.stringify([...failures])}`);
  const latency = latencies(atRate.ids);
  const outOfOrder = countTimeInversions(atRate.ids);

  load.stop();
  await display.stop();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (DB === 'mysql') await dropDatabase(db);

  const f = (x) => x.toFixed(1);
  const hb = stats(heartbeat);
  const lat = (s) =>
    `p50 ${f(s.p50)}  p95 ${f(s.p95)}  p99 ${f(s.p99)}  max ${f(s.max)} ms (n=${s.n})`;
  console.log(
    `recognition bench (${DB}): ${DEVICES} devices, ${PEOPLE} people, no snapshots, ${SECONDS} s phases, concurrency ${CONCURRENCY}`,
  );
  console.log(`  baseline  GET /api/heartbeat             ${lat(hb)}`);
  console.log(
    `  baseline  raw POST → display, max rate   ${f(rawMax.rate)} events/s; CPU µs per event: generator ${f(rawCpu.load)}, display ${f(rawCpu.own)}`,
  );
  console.log(
    `  baseline  raw POST → display @${RATE}/s    ${f(rawAtRate.rate)} events/s  ${lat(rawLatency)}`,
  );
  console.log(
    `  intake    device → server, max rate      ${f(intake.rate)} events/s (${f(intake.rate / rawMax.rate)}x raw); all delivered: ${drained}; delivery ${f(deliveryRate)} events/s`,
  );
  console.log(
    `            CPU µs per event: server ${f(cpu.server)} (intake + delivery → ${f(1e6 / cpu.server)} events/s per core)${DB === 'mysql' ? `, database ${f(cpu.db)}` : ''}; generator ${f(cpu.load)}, display ${f(cpu.own)}`,
  );
  console.log(
    `  loop      device → server → display @${RATE}/s  ${f(atRate.rate)} events/s offered-and-accepted; ${lat(latency)}`,
  );
  console.log(`            device POST → server's answer: ${lat(stats(atRate.answered))}`);
  console.log(
    `            p99 ${f(latency.p99 / rawLatency.p99)}x raw p99; ${latency.n - atRate.ids.length} missing; ${outOfOrder} shown before an event with an earlier time`,
  );
  console.log(`  goal: ≥ 2,000 events/s sustained, p99 ≤ 250 ms device POST → display receipt`);
}

async function drain(ms) {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (shownAt.size >= sentAt.size) return true;
    await sleep(20);
  }
  return false;
}

function latencies(ids) {
  return stats(ids.filter((id) => shownAt.has(id)).map((id) => shownAt.get(id) - sentAt.get(id)));
}

/** How many events the display showed after one that was sent later (different devices race). */
function countTimeInversions(ids) {
  const mine = new Set(ids);
  let latest = -Infinity;
  let inversions = 0;
  for (const id of shownOrder) {
    if (!mine.has(id)) continue;
    const t = sentAt.get(id);
    if (t < latest) inversions++;
    else latest = t;
  }
  return inversions;
}

// startServer's exit hook stops the server of a failed run.
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
