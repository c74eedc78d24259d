import { readdir, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { CSRF_HEADER } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { TestClient } from '../test/http-client.js';
import { requireBuild, spawnServer, type Spawned } from '../test/process.js';
import { FACES, faceCrop } from '../test/faces.js';

/**
 * The CI size of bench/photo-burst.mjs (200 uploads of 35 MP photos): enough uploads of large
 * photos at once to overrun a queue of QUEUE. Distinct photos, so the face check's cache never
 * answers for one.
 */
const UPLOADS = 14;
const QUEUE = 3;
const SIDE = { width: 2400, height: 3200 };
/** A request unanswered after this long is a hung one (the service is meant to answer). */
const HUNG_MS = 120_000;

async function largeFaces(count: number): Promise<Buffer[]> {
  const faces = [FACES.sample3Left, FACES.sample1Left, FACES.sample1Right];
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const crop = await faceCrop(faces[i % faces.length]!);
    const n = i + 1;
    out.push(
      await sharp(crop)
        .resize({ ...SIDE, fit: 'fill' })
        // A corner of this photo's own colour: no two decode to the same picture.
        .composite([
          {
            input: {
              create: {
                width: 96,
                height: 96,
                channels: 3,
                background: { r: (n * 53) & 255, g: (n * 97) & 255, b: n },
              },
            },
            left: 0,
            top: 0,
          },
        ])
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  }
  return out;
}

/** Connections the server has open on its SQLite database: one descriptor each on `-wal`. */
async function walDescriptors(pid: number, storage: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `${storage}-wal`) n++;
  }
  return n;
}

function dbEnv(scratch: ScratchDb): Record<string, string> {
  const { db } = scratch;
  if (db.dialect === 'sqlite') return {};
  return {
    DB_HOST: db.host,
    DB_PORT: String(db.port),
    DB_USER: db.user,
    DB_PASSWORD: db.password,
    DB_DATABASE: db.database,
  };
}

/**
 * Issue 32, item 1, against the built server: a burst of large photo uploads by an
 * administrator while a prober reads the heartbeat and signs in. Before: uploads past the
 * face check's 30 s answered 500 while their work went on, SQLite's failed transactions kept
 * their connections (and once the write lock) for good, and SIGTERM could hang.
 */
describe.each(DIALECTS)('a burst of photo uploads on %s', (dialect) => {
  let scratch: ScratchDb;
  let proc: Spawned;
  let url: string;
  let admin: TestClient;
  const password = 'copper harbour violet seventy';
  let people: string[];
  let photos: Buffer[];

  beforeAll(async () => {
    requireBuild();
    scratch = await scratchDb(dialect);
    const initial = 'quartz meadow lantern ninety';
    ({ proc, url } = await spawnServer({
      HTTP_HOST: '127.0.0.1',
      DATA_DIR: scratch.dataDir,
      SVC_DISCOVERY_WORKER: '0',
      SVC_PUSH_WORKER: '0',
      FACE_CHECK: 'on',
      FACE_CHECK_QUEUE: String(QUEUE),
      ADMIN_INITIAL_PASSWORD: initial,
      LOG_LEVEL: 'warn',
      ...dbEnv(scratch),
    }));
    admin = new TestClient(url);
    expect((await admin.login('admin', initial)).status).toBe(200);
    const changed = await admin.post('/api/auth/password', {
      currentPassword: initial,
      newPassword: password,
    });
    expect(changed.status).toBe(204);
    people = [];
    for (let i = 0; i <= UPLOADS; i++) {
      const made = await admin.post('/api/people', { name: `Burst ${i}`, idNumber: `BU${i}` });
      expect(made.status).toBe(201);
      people.push((made.body as { id: string }).id);
    }
    photos = await largeFaces(UPLOADS + 1);
  }, 240_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
    await scratch?.drop();
  });

  const put = async (id: string, photo: Buffer) => {
    const res = await fetch(`${url}/api/people/${id}/photo`, {
      method: 'PUT',
      signal: AbortSignal.timeout(HUNG_MS),
      headers: {
        'content-type': 'image/jpeg',
        cookie: `svc_session=${admin.cookie('svc_session')}; svc_csrf=${admin.cookie('svc_csrf')}`,
        [CSRF_HEADER]: await admin.csrf(),
      },
      body: photo,
    });
    const body = (await res.json()) as { error?: { code: string; message: string } };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
  };
  const beat = async () => {
    const res = await fetch(`${url}/api/heartbeat`, { signal: AbortSignal.timeout(HUNG_MS) });
    return { status: res.status, state: ((await res.json()) as { state: number }).state };
  };
  const signIn = async () => (await new TestClient(url).login('admin', password)).status;

  test('is answered at once past the queue, never 500, and leaves a healthy service', async () => {
    const storage = scratch.db.dialect === 'sqlite' ? scratch.db.storage : '';
    const pid = proc.child.pid!;
    const before = storage ? await walDescriptors(pid, storage) : 0;
    // The model loads in the background: the first check waits for it.
    expect((await put(people[0]!, photos[0]!)).status).toBe(200);

    let probing = true;
    const beats: { status: number; state: number }[] = [];
    const signIns: number[] = [];
    const prober = (async () => {
      let n = 0;
      while (probing) {
        beats.push(await beat());
        if (n++ % 4 === 0) signIns.push(await signIn());
        await sleep(500);
      }
    })();
    const answers = await Promise.all(people.slice(1).map((id, i) => put(id, photos[i + 1]!)));
    probing = false;
    await prober;

    const statuses = answers.map((a) => a.status);
    // Each one answered: stored, refused by the face check, or refused busy — never a 500.
    expect(statuses.filter((s) => ![200, 422, 503].includes(s))).toEqual([]);
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(QUEUE);
    for (const refused of busy) {
      expect(refused.body.error?.code).toBe('service_busy');
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Through the burst the database never looked down and every sign-in went through.
    expect(beats.length).toBeGreaterThan(0);
    expect(beats.filter((b) => b.status !== 200 || b.state !== 1)).toEqual([]);
    expect(signIns.filter((s) => s !== 200)).toEqual([]);

    // Healthy after it, with no restart: heartbeat, sign-in, and an upload stored.
    expect(await beat()).toEqual({ status: 200, state: 1 });
    expect(await signIn()).toBe(200);
    expect((await put(people[0]!, photos[UPLOADS]!)).status).toBe(200);
    if (storage) {
      // No connection left behind by the burst (polled: closing runs on the driver's threads).
      const deadline = Date.now() + 30_000;
      while ((await walDescriptors(pid, storage)) > before && Date.now() < deadline) {
        await sleep(200);
      }
      expect(await walDescriptors(pid, storage)).toBeLessThanOrEqual(before);
    }

    proc.child.kill('SIGTERM');
    const stopped = await Promise.race([proc.exited.then(() => true), sleep(30_000, false)]);
    expect(stopped).toBe(true);
  }, 400_000);
});
