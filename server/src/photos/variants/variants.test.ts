import { jpegFrame, photoFit, photoStored, type PhotoUnfitDevice } from '@svc/shared';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { reconcileDevice } from '../../sync/reconciliation/read-back.js';
import { beat, createSpace, held, registerSim, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../../sync/worker/worker.js';

const LIMIT_BYTES = 60_000;
const LIMIT_SIDE = 480;

/** A generated photo-like JPEG (blurred noise: no face, nobody's data) that compresses like a photo. */
const detailedJpeg = (width: number, height: number, seed = 60) =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: seed },
    },
  })
    .blur(1.5)
    .jpeg({ quality: 95 })
    .toBuffer();

describe.each(DIALECTS)('per-device photo variants on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let worker: SyncWorker;
  let limited: SimDevice, free: SimDevice, tall: SimDevice;
  let gate: string, tower: string;
  let serial = 0;
  let photo: Buffer;

  const addPerson = async (spaceIds: string[]) => {
    const reply = await admin.post('/api/people', {
      name: `Variant Person ${++serial}`,
      idNumber: `VAR-${dialect}-${serial}`,
      spaceIds,
    });
    expect(reply.status).toBe(201);
    return (reply.body as { id: string }).id;
  };
  const upload = async (id: string, image: Buffer) => {
    const reply = await admin.request('PUT', `/api/people/${id}/photo`, {
      body: { photo: image.toString('base64') },
      csrf: true,
    });
    expect(reply.status).toBe(200);
    return photoStored.parse(reply.body);
  };
  const task = async (personId: string, d: SimDevice) =>
    (await server.ctx.models.SyncTask.findOne({ where: { personId, deviceId: d.id } }))!;
  const pushesOf = (d: SimDevice, personId: string) =>
    d.sim.pushes().filter((p) => p.personId === personId).length;
  const variantRows = (source: string) =>
    server.ctx.db.sequelize.query<{ profile: string; variant_sha256: string | null }>(
      'SELECT profile, variant_sha256 FROM photo_variants WHERE source_sha256 = ?',
      { replacements: [source], type: QueryTypes.SELECT },
    );

  afterAll(async () => {
    for (const d of [limited, free, tall]) await d?.sim.stop();
    await worker?.stop();
  });
  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    worker = new SyncWorker(server.ctx);
    photo = await detailedJpeg(1600, 1200);
    gate = await createSpace(admin, 'Gate');
    tower = await createSpace(admin, 'Tower');
    // The simulators enforce what their registrations declare: a push beyond it would fail.
    limited = await registerSim(server, admin, gate, {
      photoLimits: { maxPhotoBytes: LIMIT_BYTES, maxPhotoSide: LIMIT_SIDE, baseline420: true },
      fields: { maxPhotoBytes: LIMIT_BYTES, maxPhotoPixels: LIMIT_SIDE, photoBaseline420: true },
    });
    free = await registerSim(server, admin, gate);
    tall = await registerSim(server, admin, tower, {
      photoLimits: { minPhotoSide: 900 },
      fields: { minPhotoSide: 900 },
    });
  });

  test('a limited device gets a variant within its limits, the free one the stored photo; reconciliation agrees', async () => {
    await beat(limited, free, tall);
    const id = await addPerson([gate]);
    const stored = await upload(id, photo);
    expect(stored.unfitDevices).toEqual([]);
    const original = stored.photoSha256;
    expect((await server.ctx.photos.read(original))!.length).toBeGreaterThan(LIMIT_BYTES);
    await worker.runUntilIdle();

    // Without limits: the stored photo itself.
    expect(held(free)[id]?.photoSha256).toBe(original);
    // With limits: a variant, within both, baseline 4:2:0, and the device reports its hash.
    const variant = held(limited)[id]!.photoSha256;
    expect(variant).not.toBe(original);
    const bytes = (await server.ctx.photos.read(variant))!;
    const frame = jpegFrame(bytes)!;
    expect(bytes.length).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(Math.max(frame.width, frame.height)).toBeLessThanOrEqual(LIMIT_SIDE);
    expect([frame.width, frame.baseline, frame.subsampling]).toEqual([LIMIT_SIDE, true, '4:2:0']);
    const t = await task(id, limited);
    expect([t.state, t.photoSha256, t.resultPhotoSha256]).toEqual(['succeeded', original, variant]);
    expect((await task(id, free)).resultPhotoSha256).toBe(original);

    // Reconciliation compares with the acknowledged variant: nothing differs, nothing re-sent.
    const device = (await server.ctx.models.Device.findByPk(limited.id))!;
    const summary = await reconcileDevice(server.ctx, worker.client, device);
    expect(summary).toMatchObject({ checked: 1, requeued: 0, errors: 0 });
    await worker.runUntilIdle();
    expect([pushesOf(limited, id), pushesOf(free, id)]).toEqual([1, 1]);
    expect((await task(id, limited)).state).toBe('succeeded');

    // Made once per (photo, profile) and kept: another person with the same photo reuses it.
    const twin = await addPerson([gate]);
    expect((await upload(twin, photo)).photoSha256).toBe(original);
    await worker.runUntilIdle();
    expect(held(limited)[twin]?.photoSha256).toBe(variant);
    expect(await variantRows(original)).toEqual([
      { profile: `b${LIMIT_BYTES}.x${LIMIT_SIDE}.n0.j420`, variant_sha256: variant },
    ]);

    // A device that really held another photo is still caught.
    await limited.sim.removePersonSilently(twin);
    expect(await reconcileDevice(server.ctx, worker.client, device)).toMatchObject({
      requeued: 1,
    });
    await worker.runUntilIdle();
    expect(held(limited)[twin]?.photoSha256).toBe(variant);
  });

  test('a photo too small for a device is reported on upload and on the person page, and never pushed', async () => {
    await beat(limited, free, tall);
    const id = await addPerson([tower]);
    const stored = await upload(id, await detailedJpeg(800, 600));
    const expected: PhotoUnfitDevice[] = [
      {
        deviceId: tall.id,
        sn: tall.sn,
        name: expect.any(String),
        message: expect.stringMatching(
          /800×600 pixels; the device needs at least 900 on the shorter side/,
        ),
        // Issue 34: the same as a code with the device's limits, for the site to word.
        code: 'photo_fit_small',
        params: { width: 800, height: 600, minSide: 900 },
      },
    ];
    expect(stored.unfitDevices).toEqual(expected);
    const page = await admin.get(`/api/people/${id}/photo/fit`);
    expect(page.status).toBe(200);
    expect(photoFit.parse(page.body).unfitDevices).toEqual(expected);
    await worker.runUntilIdle();
    const t = await task(id, tall);
    expect([t.state, t.attempts, t.errorCode]).toEqual(['failed', 0, 'photo_unfit']);
    expect(pushesOf(tall, id)).toBe(0);

    // A larger photo fits: the warning is gone and the device gets it.
    const bigger = await upload(id, await detailedJpeg(1000, 950));
    expect(bigger.unfitDevices).toEqual([]);
    await worker.runUntilIdle();
    expect(held(tall)[id]?.photoSha256).toBe(bigger.photoSha256);
  });

  test('changing a device’s limits sends its people again, fitted to the new ones', async () => {
    await beat(limited, free, tall);
    const people = Object.keys(held(limited));
    expect(people.length).toBeGreaterThan(0);
    await limited.sim.setFaults({});
    const reply = await admin.request('PATCH', `/api/devices/${limited.id}`, {
      body: { maxPhotoPixels: 320 },
      csrf: true,
    });
    expect(reply.status).toBe(200);
    await worker.runUntilIdle();
    for (const id of people) {
      const frame = jpegFrame((await server.ctx.photos.read(held(limited)[id]!.photoSha256))!)!;
      expect(Math.max(frame.width, frame.height)).toBe(320);
      expect((await task(id, limited)).state).toBe('succeeded');
    }
    const bad = await admin.request('PATCH', `/api/devices/${tall.id}`, {
      body: { maxPhotoPixels: 600 },
      csrf: true,
    });
    expect([bad.status, (bad.body as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_input',
    ]);
  });

  test('a replaced photo’s variants go with it', async () => {
    await beat(limited, free, tall);
    const id = await addPerson([gate]);
    const first = (await upload(id, await detailedJpeg(1400, 1000, 50))).photoSha256;
    await worker.runUntilIdle();
    const [row] = await variantRows(first);
    expect(row?.variant_sha256).toMatch(/^[0-9a-f]{64}$/);
    await upload(id, await detailedJpeg(1400, 1000, 40));
    expect(await variantRows(first)).toEqual([]);
    expect(await server.ctx.models.File.findByPk(first)).toBeNull();
  });
});
