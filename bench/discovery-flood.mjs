#!/usr/bin/env node
// Discovery flood benchmark (issue 20, finding 3): a real svc_server process receives announces
// of 1,000,000 distinct invented ids on loopback. Prints the server's peak RSS against its idle
// RSS, what the worker did with the datagrams (kept, dropped at DISCOVERY_MAX_NODES), and the
// heartbeat's and the node list's answers during the flood.
//
//   node bench/discovery-flood.mjs [--ids 1000000] [--db sqlite|mysql] [--max-nodes 10000]
//   (--db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD; needs `npm run build`.)
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { flags, freePort, percentiles } from './lib.mjs';
import { dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const IDS = Number(args.ids ?? 1_000_000);
const DB = args.db ?? 'sqlite';
const MAX_NODES = Number(args['max-nodes'] ?? 10_000);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Datagrams sent before waiting for the server to have counted them (the socket buffer). */
const BURST = 2_000;

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function timed(url) {
  const t = process.hrtime.bigint();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  return {
    ms: Number(process.hrtime.bigint() - t) / 1e6,
    status: res.status,
    bytes: body.byteLength,
  };
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-flood-'));
  const udpPort = await freePort();
  const server = await startServer({
    ROOT,
    DB,
    dataDir,
    name: 'flood',
    env: {
      SVC_DISCOVERY_WORKER: '1',
      DISCOVERY_PORT: String(udpPort),
      DISCOVERY_HOST: '192.0.2.10',
      DISCOVERY_MAX_NODES: String(MAX_NODES),
    },
  });
  const heartbeatUrl = `${server.base}/api/heartbeat`;
  const counts = async () => (await (await fetch(heartbeatUrl)).json()).discovery.counts;
  await sleep(3_000);
  const idle = memory(server.pid);
  const before = await counts();

  const socket = dgram.createSocket('udp4');
  await new Promise((r) => socket.bind(0, '127.0.0.1', r));
  const send = (payload) =>
    new Promise((resolve, reject) =>
      socket.send(payload, udpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
    );
  const heartbeats = [];
  const lists = [];
  let rssMax = idle.rss;
  const start = Date.now();
  for (let sent = 0; sent < IDS;) {
    const n = Math.min(BURST, IDS - sent);
    await Promise.all(
      Array.from({ length: n }, (_, j) =>
        send(
          Buffer.from(
            `{"svc":"discovery","v":1,"type":"announce","id":"FLOOD-${sent + j}","kind":"display","port":8181}`,
          ),
        ),
      ),
    );
    sent += n;
    // Flow control, and the heartbeat's answer under the flood at the same time.
    for (let tries = 0; ; tries++) {
      const h = await timed(heartbeatUrl);
      heartbeats.push(h);
      const c = await counts();
      if (c.received - before.received >= sent || tries > 50) break;
      await sleep(5);
    }
    if (sent % Math.max(BURST, IDS / 10) === 0) {
      lists.push(await timed(`${server.base}/api/discovery/nodes`));
      rssMax = Math.max(rssMax, memory(server.pid).rss);
    }
  }
  const seconds = (Date.now() - start) / 1000;
  await sleep(1_500);
  const after = await counts();
  const end = memory(server.pid);
  const online = (await (await fetch(`${server.base}/api/discovery/nodes`)).json()).length;
  socket.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (DB === 'mysql') await dropDatabase(server.db);

  const f = (x) => x.toFixed(1);
  const hb = percentiles(heartbeats.map((h) => h.ms));
  const ls = percentiles(lists.map((l) => l.ms));
  const bad = heartbeats.filter((h) => h.status !== 200).length;
  console.log(
    `discovery flood (${DB}): ${IDS} distinct ids in ${f(seconds)} s, DISCOVERY_MAX_NODES ${MAX_NODES}`,
  );
  console.log(
    `  datagrams counted ${after.received - before.received}, announces ${after.announces - before.announces}, dropped node_limit ${after.dropped.node_limit - before.dropped.node_limit}`,
  );
  // Ids kept are those of the flood's first seconds (and, after each DISCOVERY_TIMEOUT, the
  // next ones): a flood longer than the timeout leaves fewer online at its end.
  console.log(`  nodes online after the flood: ${online}`);
  console.log(
    `  server RSS: idle ${f(idle.rss)} MB, highest sampled ${f(rssMax)} MB, peak (VmHWM) ${f(end.peak)} MB, at the end ${f(end.rss)} MB  goal < 400 MB`,
  );
  console.log(
    `  heartbeat during the flood: ${heartbeats.length} answers, ${bad} not 200, p50 ${f(hb.p50)} ms, p95 ${f(hb.p95)} ms, max ${f(hb.max)} ms`,
  );
  console.log(
    `  node list during the flood: ${lists.length} answers of ${Math.min(...lists.map((l) => l.bytes))}–${Math.max(...lists.map((l) => l.bytes))} bytes, p50 ${f(ls.p50)} ms, max ${f(ls.max)} ms`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
