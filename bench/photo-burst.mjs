#!/usr/bin/env node
// Photo burst (issue 32, item 1): N uploads at once of distinct large face photos by an
// administrator, while a prober reads the heartbeat every 0.5 s and signs in every 2 s. Prints
// the uploads accepted, refused (503 + Retry-After) and failed otherwise, the heartbeat's and
// the sign-in's maximum during the burst, the time from the burst's end until the service is
// healthy (heartbeat state 1, a sign-in and an upload answered), the server's RSS, the
// descriptors it holds on its database files, and how long SIGTERM took to stop it.
//
//   flock -x /tmp/bench.lock node bench/photo-burst.mjs [--uploads 200] [--mp 35] [--db sqlite|mysql]
//     [--queue <FACE_CHECK_QUEUE>] [--threads <UV_THREADPOOL_SIZE>] [--photos-dir /tmp/svc-bench-burst-photos]
//   (needs `npm run build`; --db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD.)
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { burstPhotos } from './burst-photos.mjs';
import { flags } from './lib.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const UPLOADS = Number(args.uploads ?? 200);
const MP = Number(args.mp ?? 35);
const DB = args.db ?? 'sqlite';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PHOTOS_DIR = args['photos-dir'] ?? path.join(os.tmpdir(), 'svc-bench-burst-photos');
/** A request still unanswered after this long counts as hung. */
const HUNG_MS = 60_000;

const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status(pid))[1]);
const mb = (v) => (v / 1024).toFixed(0);
const f1 = (v) => (v === undefined ? '-' : v.toFixed(1));
/** Descriptors the server holds on its SQLite files (svc.sqlite, -wal, -shm). */
function dbDescriptors(pid) {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (/svc\.sqlite/.test(readlinkSync(`/proc/${pid}/fd/${fd}`))) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

async function timed(fn) {
  const t0 = performance.now();
  try {
    const res = await fn(AbortSignal.timeout(HUNG_MS));
    return { ms: performance.now() - t0, res };
  } catch (err) {
    return { ms: performance.now() - t0, err };
  }
}

/** A fresh sign-in (CSRF token, then the login), as a browser would do it. */
async function signIn(base, password, signal) {
  const csrf = await fetch(`${base}/api/auth/csrf`, { signal });
  const { token } = await csrf.json();
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', 'x-csrf-token': token, cookie },
    body: JSON.stringify({ username: 'admin', password }),
  });
  await res.arrayBuffer();
  return res;
}

function probeLoops(base, password) {
  const beats = [];
  const signIns = [];
  let stop = false;
  const beat = (async () => {
    while (!stop) {
      const r = await timed((signal) => fetch(`${base}/api/heartbeat`, { signal }));
      const body = r.res ? await r.res.json().catch(() => ({})) : {};
      beats.push({ ms: r.ms, ok: r.res?.status === 200 && body.state === 1 });
      await sleep(500);
    }
  })();
  const sign = (async () => {
    while (!stop) {
      const r = await timed((signal) => signIn(base, password, signal));
      signIns.push({ ms: r.ms, ok: r.res?.status === 200 });
      await sleep(2_000);
    }
  })();
  return {
    async end() {
      stop = true;
      await Promise.all([beat, sign]);
      return { beats, signIns };
    },
  };
}

/**
 * The prober runs in a process of its own: in this one, 200 uploads of a megabyte each keep
 * the event loop busy enough to add seconds to the prober's own timings.
 */
function prober(base, password) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', 'prober'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const started = new Promise((resolve) => child.once('message', resolve));
  child.send({ base, password });
  return {
    started,
    end: () =>
      new Promise((resolve) => {
        child.once('message', (m) => {
          child.disconnect();
          resolve(m);
        });
        child.send('stop');
      }),
  };
}

async function proberChild() {
  const { base, password } = await new Promise((resolve) => process.once('message', resolve));
  const loops = probeLoops(base, password);
  process.send('started');
  await new Promise((resolve) => process.once('message', resolve));
  process.send(await loops.end());
}

async function healthy(base, api, personId, photo) {
  const beat = await fetch(`${base}/api/heartbeat`, { signal: AbortSignal.timeout(2_000) });
  if (beat.status !== 200 || (await beat.json()).state !== 1) return false;
  const sign = await signIn(base, api.password, AbortSignal.timeout(5_000));
  if (sign.status !== 200) return false;
  const up = await api.send('PUT', `/api/people/${personId}/photo`, photo, 'image/jpeg');
  // 422: the face check looked at it and said why (some generated crops fail it).
  return up.status === 200 || up.status === 422;
}

async function run() {
  console.log(`making ${UPLOADS + 2} distinct ${MP} MP face photos (cached in ${PHOTOS_DIR})…`);
  const { photos, width, height } = await burstPhotos({
    count: UPLOADS + 2,
    megapixels: MP,
    dir: PHOTOS_DIR,
    log: console.log,
  });
  const avgKb = photos.reduce((s, p) => s + p.length, 0) / photos.length / 1024;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-burst-'));
  const loopLog = path.join(os.tmpdir(), `svc-bench-burst-loop-${process.pid}.jsonl`);
  // The event loop's and libuv pool's delays inside the server (bench/loop-probe.mjs).
  process.env.SVC_BENCH_NODE_ARGS = [
    process.env.SVC_BENCH_NODE_ARGS ?? '',
    `--import=${path.join(ROOT, 'bench/loop-probe.mjs')}`,
  ].join(' ');
  const server = await startServer({
    ROOT,
    DB,
    dataDir,
    name: 'burst',
    env: {
      FACE_CHECK: 'on',
      SVC_BENCH_LOOP_LOG: loopLog,
      ...(args.queue && { FACE_CHECK_QUEUE: args.queue }),
      ...(args.threads && { UV_THREADPOOL_SIZE: args.threads }),
    },
  });
  const api = await adminSession(server.base, server.password);
  const people = [];
  for (let i = 0; i < UPLOADS + 1; i++) {
    const p = await api.json(
      'POST',
      '/api/people',
      { name: `Burst ${i}`, idNumber: `BU${i}` },
      201,
    );
    people.push(p.id);
  }
  // The model loads in the background at start; the first upload waits for it.
  const first = await api.send('PUT', `/api/people/${people[0]}/photo`, photos[0], 'image/jpeg');
  if (first.status !== 200)
    throw new Error(`warm-up upload: ${first.status} ${await first.text()}`);
  const rssBefore = kb(server.pid, 'VmRSS');
  const fdsBefore = DB === 'sqlite' ? dbDescriptors(server.pid) : 0;

  const probe = prober(server.base, api.password);
  await probe.started;
  await sleep(1_000);
  const wall0 = Date.now();
  const t0 = performance.now();
  const answers = await Promise.all(
    people.slice(1).map((id, i) =>
      timed((signal) =>
        fetch(`${server.base}/api/people/${id}/photo`, {
          method: 'PUT',
          signal,
          headers: { 'content-type': 'image/jpeg', ...api.headers() },
          body: photos[i + 1],
        }).then(async (res) => {
          await res.arrayBuffer();
          return res;
        }),
      ),
    ),
  );
  const burstS = (performance.now() - t0) / 1000;
  const { beats, signIns } = await probe.end();
  const wall1 = Date.now();
  const fdsPeak = DB === 'sqlite' ? dbDescriptors(server.pid) : 0;

  const t1 = performance.now();
  let healthyS;
  while ((performance.now() - t1) / 1000 < 120) {
    if (await healthy(server.base, api, people[0], photos[UPLOADS + 1]).catch(() => false)) {
      healthyS = (performance.now() - t1) / 1000;
      break;
    }
    await sleep(500);
  }
  await sleep(5_000);
  const fdsAfter = DB === 'sqlite' ? dbDescriptors(server.pid) : 0;
  const rssAfter = kb(server.pid, 'VmRSS');
  const rssPeak = kb(server.pid, 'VmHWM');
  const t2 = performance.now();
  const stopped = await Promise.race([server.stop().then(() => true), sleep(30_000, false)]);
  const stopS = (performance.now() - t2) / 1000;

  const count = (pred) => answers.filter(pred).length;
  const refused = answers.filter((a) => a.res?.status === 503);
  const retryAfter = refused.map((a) => Number(a.res.headers.get('retry-after')));
  const other = {};
  for (const a of answers) {
    const key = a.err ? `no answer (${a.err.name})` : String(a.res.status);
    if (!['200', '422', '503'].includes(key)) other[key] = (other[key] ?? 0) + 1;
  }
  const max = (list) => Math.max(...list.map((x) => x.ms));
  console.log(
    `\nphoto burst, ${DB}: ${UPLOADS} uploads at once of distinct ${width}×${height} (${MP} MP) ` +
      `face photos, ${avgKb.toFixed(0)} KB each; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  console.log(
    `uploads: ${count((a) => a.res?.status === 200)} stored, ${count((a) => a.res?.status === 422)} refused by the face check, ` +
      `${refused.length} refused busy (503, Retry-After ${Math.min(...retryAfter)}–${Math.max(...retryAfter)} s, ` +
      `every one with it: ${retryAfter.every((s) => s > 0)}), other: ${JSON.stringify(other)}; burst over in ${f1(burstS)} s`,
  );
  console.log(
    `refused ones answered within: max ${f1(refused.length ? max(refused) : 0)} ms; ` +
      `stored ones: max ${f1(max(answers.filter((a) => a.res?.status === 200)))} ms`,
  );
  console.log(
    `during the burst: heartbeat ${beats.length} reads, max ${f1(max(beats))} ms, ${beats.filter((b) => !b.ok).length} not state 1; ` +
      `sign-in ${signIns.length}, max ${f1(max(signIns))} ms, ${signIns.filter((s) => !s.ok).length} failed`,
  );
  const during = readFileSync(loopLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.t >= wall0 && r.t <= wall1 + 1_000);
  console.log(
    `inside the server during the burst: event loop delay max ${f1(Math.max(0, ...during.map((r) => r.loopMaxMs)))} ms, ` +
      `libuv pool wait (fs.stat) max ${f1(Math.max(0, ...during.map((r) => r.poolMaxMs)))} ms` +
      (args.threads ? ` (UV_THREADPOOL_SIZE ${args.threads})` : '') +
      `; per second in ${loopLog}`,
  );
  console.log(
    `healthy again (heartbeat, sign-in and an upload) ${healthyS === undefined ? 'NOT within 120 s' : `${f1(healthyS)} s`} after the burst`,
  );
  console.log(
    `server RSS before / peak (VmHWM) / after: ${mb(rssBefore)} / ${mb(rssPeak)} / ${mb(rssAfter)} MB` +
      (DB === 'sqlite'
        ? `; descriptors on svc.sqlite* before / at the end of the burst / after: ${fdsBefore} / ${fdsPeak} / ${fdsAfter}`
        : ''),
  );
  console.log(`SIGTERM: ${stopped ? `stopped in ${f1(stopS)} s` : 'NOT stopped within 30 s'}`);
  if (!stopped) process.kill(server.pid, 'SIGKILL');
  if (DB === 'mysql') await dropDatabase(server.db);
  rmSync(dataDir, { recursive: true, force: true });
}

if (args.child === 'prober') {
  await proberChild();
} else {
  await run();
  process.exit(0);
}
