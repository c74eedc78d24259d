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
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { flags } from './lib.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const DB = args.db ?? 'sqlite';
const RATE = Number(args.rate ?? 2000);
const SECONDS = Number(args.seconds ?? 20);
const DEVICES = Number(args.devices ?? 20);
const CONCURRENCY = Number(args.concurrency ?? 64);
const PEOPLE = 200;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { startDevice, startTerminal } = await import(path.join(ROOT, 'tools/sim/dist/index.js'));

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
 * Receipt times by eventId at the display. Every send registers its start time under the
 * event's id before the request leaves (the device's uuid source is wrapped for that).
 */
const sentAt = new Map();
const failures = new Map();
const shownAt = new Map();
let shownOrder = [];

/**
 * The load generator's HTTP client (the simulated devices' and the raw baseline's): node:http
 * with kept-alive connections. The global fetch costs several times more CPU per request, and
 * this process also hosts the display, so with fetch the generator was the bottleneck.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
function lightFetch(url, init) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method, headers: init.headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode })));
      res.on('error', reject);
    });
    req.on('error', reject);
    init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), {
      once: true,
    });
    req.end(init.body);
  });
}

/** CPU seconds a process has used (utime + stime from /proc, 100 ticks a second). */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
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
        shownAt.set(e.eventId, performance.now());
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
  const uuid = () => {
    const id = randomUUID();
    sentAt.set(id, performance.now());
    return id;
  };
  const devices = [];
  for (let i = 0; i < DEVICES; i++) {
    const sn = `BENCH-${i}`;
    const reg = await admin.json(
      'POST',
      '/api/devices',
      { sn, name: `Bench gate ${i}`, baseUrl: 'http://127.0.0.1:9', spaceId: space.id },
      201,
    );
    devices.push(
      await startDevice(
        {
          sn,
          key: reg.key,
          bindAddress: '127.0.0.1',
          httpPort: 0,
          centralUrl: base,
          heartbeatIntervalMs: 0,
        },
        { uuid, fetch: lightFetch },
      ),
    );
  }
  await admin.json('POST', '/api/panel/route', { mode: 'local', url: panelUrl });

  let n = 0;
  const emit = async () => {
    const i = n++;
    const r = await devices[i % DEVICES].emitEvent({ personId: people[i % PEOPLE] });
    if (r.status !== 202) {
      const why = r.error ?? `HTTP ${r.status}`;
      failures.set(why, (failures.get(why) ?? 0) + 1);
      sentAt.delete(r.eventId);
      return null;
    }
    return r.eventId;
  };
  // The raw ceiling: the display receives the same panel bodies straight from this process.
  let raw = 0;
  const rawSend = async () => {
    const eventId = uuid();
    try {
      const res = await lightFetch(panelUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          eventId,
          time: new Date().toISOString(),
          score: 0.97,
          person: { id: people[raw++ % PEOPLE], name: 'Bench Person' },
          device: { sn: 'BENCH-0', name: 'Bench gate 0' },
          space: { id: space.id, name: 'Bench hall' },
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      return eventId;
    } catch (err) {
      const why = `raw: ${err.message}`;
      failures.set(why, (failures.get(why) ?? 0) + 1);
      sentAt.delete(eventId);
      return null;
    }
  };

  // Warm-up (JIT, connection pools, prepared statements), not counted.
  await closedLoop(emit, 2, CONCURRENCY);
  await drain(2000);
  await closedLoop(rawSend, 1, CONCURRENCY);

  const heartbeat = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await (await fetch(`${base}/api/heartbeat`)).arrayBuffer();
    heartbeat.push(performance.now() - t);
  }

  progress('warmed up');
  const rawMax = await closedLoop(rawSend, SECONDS / 2, CONCURRENCY);
  const rawAtRate = await openLoop(rawSend, RATE, SECONDS / 2);
  const rawLatency = latencies(rawAtRate.ids);

  progress(
    `raw baseline done: max ${rawMax.rate.toFixed(0)}/s, at rate ${rawAtRate.rate.toFixed(0)}/s`,
  );
  const cpu0 = cpuSeconds(server.pid);
  const ownCpu0 = process.cpuUsage();
  const intake = await closedLoop(emit, SECONDS, CONCURRENCY);
  progress(
    `intake phase done: ${intake.rate.toFixed(0)}/s, failures ${JSON.stringify([...failures])}`,
  );
  const drained = await drain(60_000);
  // Server CPU per event, intake and delivery together: the figure least moved by a busy machine.
  const cpuPerEvent = ((cpuSeconds(server.pid) - cpu0) / intake.ids.length) * 1e6;
  const ownCpu = process.cpuUsage(ownCpu0);
  const ownPerEvent = (ownCpu.user + ownCpu.system) / intake.ids.length;
  const lastShown = Math.max(...intake.ids.map((id) => shownAt.get(id) ?? 0));
  const deliveryRate = intake.ids.length / ((lastShown - intake.startedAt) / 1000);

  progress('drained');
  const atRate = await openLoop(emit, RATE, SECONDS);
  await drain(60_000);
  progress(`rate phase drained, failures ${JSON.stringify([...failures])}`);
  const latency = latencies(atRate.ids);
  const outOfOrder = countTimeInversions(atRate.ids);

  for (const d of devices) await d.stop();
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
  console.log(`  baseline  raw POST → display, max rate   ${f(rawMax.rate)} events/s`);
  console.log(
    `  baseline  raw POST → display @${RATE}/s    ${f(rawAtRate.rate)} events/s  ${lat(rawLatency)}`,
  );
  console.log(
    `  intake    device → server, max rate      ${f(intake.rate)} events/s (${f(intake.rate / rawMax.rate)}x raw); all delivered: ${drained}; delivery ${f(deliveryRate)} events/s`,
  );
  console.log(
    `            server CPU ${f(cpuPerEvent)} µs per event (intake + delivery) → ${f(1e6 / cpuPerEvent)} events/s per core; this process (devices + display) ${f(ownPerEvent)} µs`,
  );
  console.log(
    `  loop      device → server → display @${RATE}/s  ${f(atRate.rate)} events/s offered-and-accepted; ${lat(latency)}`,
  );
  console.log(
    `            p99 ${f(latency.p99 / rawLatency.p99)}x raw p99; ${latency.n - atRate.ids.length} missing; ${outOfOrder} shown before an event with an earlier time`,
  );
  console.log(`  goal: ≥ 2,000 events/s sustained, p99 ≤ 250 ms device POST → display receipt`);
}

/** `workers` senders back to back for `seconds`: the rate the other side sustains. */
async function closedLoop(send, seconds, workers) {
  const ids = [];
  const startedAt = performance.now();
  const end = startedAt + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        const id = await send();
        if (id) ids.push(id);
      }
    }),
  );
  return { ids, startedAt, rate: ids.length / ((performance.now() - startedAt) / 1000) };
}

/**
 * Sends at a fixed rate whatever the answers take (open loop), so queueing shows up in the
 * latency instead of slowing the sender down. At most 512 requests in flight.
 */
async function openLoop(send, rate, seconds) {
  const ids = [];
  const pending = new Set();
  const startedAt = performance.now();
  let issued = 0;
  let refused = 0;
  while (performance.now() - startedAt < seconds * 1000) {
    const due = Math.floor(((performance.now() - startedAt) / 1000) * rate);
    for (; issued < due; issued++) {
      if (pending.size >= 512) {
        refused++;
        continue;
      }
      const p = send().then((id) => {
        if (id) ids.push(id);
        pending.delete(p);
      });
      pending.add(p);
    }
    await sleep(2);
  }
  await Promise.all(pending);
  if (refused) console.log(`  (open loop at ${rate}/s: ${refused} sends skipped, >512 in flight)`);
  return { ids, rate: ids.length / seconds };
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
