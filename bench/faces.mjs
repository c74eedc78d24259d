#!/usr/bin/env node
// Face check benchmark (issue 26): the check of one 1024 px photo (p50/p95, in-process through
// the built FaceDetector, the way the server calls it), the photo upload with the check on
// against off, the people import's rate with and without it, and the server's RSS idle with
// the model loaded against a server with the check off. Photos are crops of the demo photos
// @vladmandic/face-api ships, each with its own margins so none repeats (no cache hits).
//
//   flock -x /tmp/bench.lock node bench/faces.mjs [--photos 60] [--import 200] [--db sqlite|mysql]
//   (needs `npm run build`; --db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import yazl from 'yazl';
import { flags, percentiles } from './lib.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const PHOTOS = Number(args.photos ?? 60);
const IMPORT = Number(args.import ?? 200);
const DB = args.db ?? 'sqlite';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(path.join(ROOT, 'server/package.json'));
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
// Every face of the six demo photos (x, y, width, height at 1920 px), found by SSD-MobileNet.
const FACES = [
  [1, 414, 355, 177, 240],
  [1, 838, 421, 186, 228],
  [1, 1476, 199, 203, 241],
  [2, 1447, 153, 194, 242],
  [2, 902, 220, 151, 233],
  [2, 361, 126, 153, 259],
  [3, 585, 329, 199, 271],
  [3, 1514, 292, 170, 280],
  [3, 1075, 215, 220, 299],
  [4, 664, 53, 187, 258],
  [4, 257, 185, 162, 245],
  [4, 989, 180, 169, 227],
  [4, 1277, 144, 145, 244],
  [5, 787, 109, 156, 212],
  [5, 1113, 198, 158, 236],
  [5, 1406, 390, 165, 271],
  [5, 598, 415, 166, 249],
  [5, 377, 859, 172, 301],
  [6, 681, 321, 160, 307],
  [6, 1180, 305, 188, 280],
  [6, 1487, 263, 212, 296],
  [6, 250, 468, 210, 291],
];

/** Photo `i`: a head-and-shoulders crop around one face, margins varying with i, 1024 px high. */
async function photo(i) {
  const [sample, x, y, w, h] = FACES[i % FACES.length];
  const m = 0.45 + ((i * 7) % 10) / 40;
  const img = sharp(path.join(DEMO, `sample${sample}.jpg`));
  const { width, height } = await img.metadata();
  const left = Math.max(0, Math.round(x - w * m));
  const top = Math.max(0, Math.round(y - h * m));
  const right = Math.min(width, Math.round(x + w * (1 + m)));
  const bottom = Math.min(height, Math.round(y + h * (1 + m * 1.5)));
  return img
    .extract({ left, top, width: right - left, height: bottom - top })
    .resize({ height: 1024 })
    .jpeg({ quality: 90 })
    .toBuffer();
}

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const ms = (t0) => performance.now() - t0;
const f1 = (v) => v.toFixed(1);

function zip(files) {
  const z = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) z.addBuffer(data, name);
  z.end();
  const chunks = [];
  return new Promise((resolve) => {
    z.outputStream.on('data', (c) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

console.log(`preparing ${Math.max(PHOTOS, IMPORT)} distinct 1024 px face photos…`);
const photos = [];
for (let i = 0; i < Math.max(PHOTOS, IMPORT); i++) photos.push(await photo(i));

// 1. The check itself, in this process through the built detector (worker thread).
const { FaceDetector } = await import(
  pathToFileURL(path.join(ROOT, 'server/dist/photos/faces/detector.js')).href
);
const { normalizePhoto } = await import(
  pathToFileURL(path.join(ROOT, 'server/dist/photos/normalize.js')).href
);
const quiet = { info() {}, error: console.error, warn() {}, debug() {} };
const detector = new FaceDetector({ logger: quiet });
let t0 = performance.now();
await detector.load();
const loadMs = ms(t0);
const checks = [];
const normalized = [];
for (let i = 0; i < PHOTOS; i++) normalized.push((await normalizePhoto(photos[i])).data);
await detector.analyze(normalized[0]); // warm-up: the first inference compiles the kernels
let faces1 = 0;
for (let i = 1; i < PHOTOS; i++) {
  t0 = performance.now();
  const a = await detector.analyze(normalized[i]);
  checks.push(ms(t0));
  if (a.faces.length === 1) faces1++;
}
await detector.stop();
const check = percentiles(checks);

// 2. Servers with the check on and off: upload, import, memory.
async function measure(faceCheck) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `svc-bench-faces-${faceCheck}-`));
  const server = await startServer({
    ROOT,
    DB,
    dataDir,
    name: `faces_${faceCheck}`,
    env: { FACE_CHECK: faceCheck },
  });
  const rssStart = rssMb(server.pid);
  // Idle with the model loaded (it loads in the background at start, in about a second): the
  // issue's "idle RSS + model", before any work grows the heaps.
  await sleep(10_000);
  const rssLoaded = rssMb(server.pid);
  const api = await adminSession(server.base, server.password);
  const uploads = [];
  for (let i = 0; i < PHOTOS; i++) {
    const p = await api.json('POST', '/api/people', { name: `Bench ${i}`, idNumber: `B${i}` }, 201);
    t0 = performance.now();
    const res = await api.send('PUT', `/api/people/${p.id}/photo`, photos[i], 'image/jpeg');
    if (i > 0) uploads.push(ms(t0)); // the first one waits for the model to load
    if (res.status !== 200 && res.status !== 422) throw new Error(`upload ${res.status}`);
  }
  const files = {};
  const lines = ['name,idNumber'];
  for (let i = 0; i < IMPORT; i++) {
    lines.push(`Imported ${i},IMP${i}`);
    // Different crops than the uploads above (offset by PHOTOS), so no analysis is reused.
    files[`IMP${i}.jpg`] = photos[(i + PHOTOS) % photos.length];
  }
  const form = new FormData();
  form.append('csv', new Blob([lines.join('\n')], { type: 'text/csv' }), 'people.csv');
  form.append('photos', new Blob([await zip(files)], { type: 'application/zip' }), 'p.zip');
  t0 = performance.now();
  const started = await (await api.send('POST', '/api/imports/people', form)).json();
  let job;
  do {
    await sleep(200);
    job = await api.json('GET', `/api/imports/${started.id}`);
  } while (job.state === 'running');
  const importS = ms(t0) / 1000;
  const rssBusy = rssMb(server.pid);
  // Past the detector's idle recycle (30 s), which hands the grown WASM heap back.
  await sleep(40_000);
  const rssIdle = rssMb(server.pid);
  await server.stop();
  if (DB === 'mysql') await dropDatabase(server.db);
  rmSync(dataDir, { recursive: true, force: true });
  return {
    upload: percentiles(uploads),
    rate: IMPORT / importS,
    job,
    rssStart,
    rssLoaded,
    rssBusy,
    rssIdle,
  };
}
const on = await measure('on');
const off = await measure('off');

console.log(
  `\nface check, ${DB}, ${PHOTOS} photos 1024 px high (exactly one face found in ${faces1}), load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`model load ${f1(loadMs)} ms`);
console.log(
  `check per photo p50 / p95 / max: ${f1(check.p50)} / ${f1(check.p95)} / ${f1(check.max)} ms`,
);
console.log(
  `upload p50 / p95, check on: ${f1(on.upload.p50)} / ${f1(on.upload.p95)} ms; off: ${f1(off.upload.p50)} / ${f1(off.upload.p95)} ms`,
);
console.log(
  `import of ${IMPORT} with photos: on ${f1(on.rate)} rows/s (${on.job.succeeded} ok, ${on.job.failed} refused); off ${f1(off.rate)} rows/s; ratio ${(on.rate / off.rate).toFixed(2)}`,
);
console.log(
  `server RSS at start / idle 10 s later / right after the work / idle 40 s after it, check on: ${f1(on.rssStart)} / ${f1(on.rssLoaded)} / ${f1(on.rssBusy)} / ${f1(on.rssIdle)} MB; off: ${f1(off.rssStart)} / ${f1(off.rssLoaded)} / ${f1(off.rssBusy)} / ${f1(off.rssIdle)} MB`,
);
