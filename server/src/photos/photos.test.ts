import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { secondOrganization } from '../test/factories.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { myOrganization, signedIn } from '../test/admins.js';
import { ManualClock } from '../platform/clock.js';
import { createPhotoStore, type PhotoStore } from './store.js';
import {
  hasGpsTag,
  hugePng,
  jpegWithGps,
  person,
  pixelBombPng,
  plainJpeg,
  putPhoto,
  send,
  transparentPng,
} from '../test/images.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.each(DIALECTS)('person photos on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let operator: TestClient;
  let otherAdmin: TestClient;
  let orgId: string;
  let otherOrgId: string;

  const filePath = (sha: string) =>
    path.join(suite.scratch.dataDir, 'files', sha.slice(0, 2), sha.slice(2, 4), `${sha}.jpg`);
  const exists = (file: string) =>
    stat(file).then(
      () => true,
      () => false,
    );
  /** Every file under DATA_DIR/files, relative. */
  async function storedFiles(): Promise<string[]> {
    const root = path.join(suite.scratch.dataDir, 'files');
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
  }
  /** A store on the same database and directory whose clock runs `aheadMs` in the future. */
  const storeAhead = (aheadMs: number): PhotoStore => {
    const clock = new ManualClock(new Date(Date.now() + aheadMs));
    return createPhotoStore({
      dataDir: suite.scratch.dataDir,
      sequelize: server.ctx.db.sequelize,
      models: server.ctx.models,
      clock,
      logger: server.ctx.logger,
    });
  };

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    operator = await signedIn(server, 'operator');
    orgId = await myOrganization(admin);
    otherOrgId = await secondOrganization(server, 'Other organization');
    otherAdmin = await signedIn(server, 'admin', undefined, otherOrgId);
  });

  test('a JPEG with GPS EXIF is stored oriented, at most 1024 px, with no metadata at all', async () => {
    const id = await person(server, orgId);
    const upload = await jpegWithGps(1600, 900);
    const before = await sharp(upload).metadata();
    expect(hasGpsTag(before.exif)).toBe(true);
    expect(before.orientation).toBe(6);

    const reply = await putPhoto(admin, id, upload);
    expect(reply.status).toBe(200);
    const sha = reply.json!.photoSha256!;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);

    const stored = await readFile(filePath(sha));
    expect(sha256(stored)).toBe(sha);
    const meta = await sharp(stored).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.exif, meta.icc, meta.xmp, meta.iptc, meta.orientation]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // Orientation 6 is a quarter turn: the landscape upload is stored upright, as portrait.
    expect([meta.width, meta.height]).toEqual([576, 1024]);
    expect(stored.includes(Buffer.from('TestCam'))).toBe(false);
    expect(stored.includes(Buffer.from('Exif'))).toBe(false);

    expect((await stat(filePath(sha))).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(filePath(sha)))).mode & 0o777).toBe(0o700);
    const row = await server.ctx.models.File.findByPk(sha);
    expect(row).toMatchObject({ mediaType: 'image/jpeg', bytes: stored.length, width: 576 });
    const saved = await server.ctx.models.Person.findByPk(id);
    expect(saved).toMatchObject({ photoSha256: sha, version: 2 });

    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'person.photo', targetId: id },
    });
    expect(audit?.summary).toBe('photo set');
    expect(JSON.stringify(audit)).not.toContain(sha);

    const got = await send(admin, 'GET', `/api/people/${id}/photo`, undefined);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('cache-control')).toContain('no-store');
    expect(got.bytes.equals(stored)).toBe(true);
  });

  test('a PNG is accepted and stored as a JPEG; a small image is not enlarged', async () => {
    const id = await person(server, orgId);
    const reply = await putPhoto(admin, id, await transparentPng(300, 200), 'image/png');
    expect(reply.status).toBe(200);
    const stored = await readFile(filePath(reply.json!.photoSha256!));
    const meta = await sharp(stored).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual([
      'jpeg',
      300,
      200,
      false,
    ]);
  });

  test('the same image twice is one file with one hash', async () => {
    const image = await plainJpeg(640, 480, 17);
    const a = await putPhoto(admin, await person(server, orgId), image);
    const b = await putPhoto(admin, await person(server, orgId), image);
    expect(a.status).toBe(200);
    expect(b.json!.photoSha256).toBe(a.json!.photoSha256);
    const sha = a.json!.photoSha256!;
    expect(await server.ctx.models.File.count({ where: { sha256: sha } })).toBe(1);
    expect((await storedFiles()).filter((f) => f.includes(sha))).toEqual([
      path.join(sha.slice(0, 2), sha.slice(2, 4), `${sha}.jpg`),
    ]);
  });

  test('multipart/form-data and base64 JSON uploads store the same photo as a raw upload', async () => {
    const image = await plainJpeg(800, 600, 33);
    const raw = await putPhoto(admin, await person(server, orgId), image);
    expect(raw.status).toBe(200);

    const form = new FormData();
    form.append('note', 'ignored');
    form.append('photo', new Blob([image], { type: 'application/octet-stream' }), 'x.bin');
    const multipart = await send(
      admin,
      'PUT',
      `/api/people/${await person(server, orgId)}/photo`,
      form,
    );
    expect(multipart.status).toBe(200);
    expect(multipart.json!.photoSha256).toBe(raw.json!.photoSha256);

    const json = await send(
      admin,
      'PUT',
      `/api/people/${await person(server, orgId)}/photo`,
      JSON.stringify({ photo: image.toString('base64') }),
      { 'content-type': 'application/json' },
    );
    expect(json.status).toBe(200);
    expect(json.json!.photoSha256).toBe(raw.json!.photoSha256);

    const wrongField = new FormData();
    wrongField.append('picture', new Blob([image]), 'x.jpg');
    const refused = await send(
      admin,
      'PUT',
      `/api/people/${await person(server, orgId)}/photo`,
      wrongField,
    );
    expect([refused.status, refused.json?.error?.code]).toEqual([400, 'invalid_input']);

    const notBase64 = await send(
      admin,
      'PUT',
      `/api/people/${await person(server, orgId)}/photo`,
      JSON.stringify({ photo: 'this is *not* base64!' }),
      { 'content-type': 'application/json' },
    );
    expect([notBase64.status, notBase64.json?.error?.code]).toEqual([400, 'invalid_input']);
  });

  test('refused: a renamed text file, a truncated JPEG, other image types, other media types', async () => {
    const id = await person(server, orgId);
    const text = await putPhoto(admin, id, Buffer.from('name,id\nnobody,0000\n'.repeat(50)));
    expect(text.status).toBe(400);
    expect(text.json?.error?.code).toBe('invalid_image');
    expect(text.json?.error?.message).toMatch(/not an image.*JPEG and PNG/);

    const whole = await plainJpeg(900, 700, 90);
    const truncated = await putPhoto(admin, id, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(truncated.status).toBe(400);
    expect(truncated.json?.error?.code).toBe('invalid_image');
    // Plain words to the client; the decoder's own text only in the log (issue 32, item 7).
    expect(truncated.json?.error?.message).toBe(
      'The JPEG image is damaged or incomplete and cannot be decoded.',
    );
    expect(truncated.bytes.toString()).not.toMatch(/vips|premature|corrupt|marker|extraneous/i);
    expect(
      server.logs.lines.some(
        (l) => l.msg === 'request refused' && l.code === 'invalid_image' && !!l.detail,
      ),
    ).toBe(true);

    const gif = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#fff' } })
      .gif()
      .toBuffer();
    const gifReply = await putPhoto(admin, id, gif);
    expect([gifReply.status, gifReply.json?.error?.code]).toEqual([415, 'unsupported_media_type']);

    const plain = await send(admin, 'PUT', `/api/people/${id}/photo`, whole, {
      'content-type': 'text/plain',
    });
    expect([plain.status, plain.json?.error?.code]).toEqual([415, 'unsupported_media_type']);

    const empty = await putPhoto(admin, id, Buffer.alloc(0));
    expect(empty.status).toBe(400);
    // Nothing refused touched the person.
    expect(await server.ctx.models.Person.findByPk(id)).toMatchObject({
      photoSha256: null,
      version: 1,
    });
  });

  // Sends 20 MB several times: on a loaded machine more than jest's 30 s.
  test('a 20 MB image is refused with 413 in every form; so is a decompression bomb', async () => {
    const id = await person(server, orgId);
    const huge = await hugePng();
    const raw = await putPhoto(admin, id, huge, 'image/png');
    expect([raw.status, raw.json?.error?.code]).toEqual([413, 'payload_too_large']);
    expect(raw.json?.error?.message).toMatch(/5 MB/);

    const form = new FormData();
    form.append('photo', new Blob([huge]), 'big.png');
    const multipart = await send(admin, 'PUT', `/api/people/${id}/photo`, form);
    expect([multipart.status, multipart.json?.error?.code]).toEqual([413, 'payload_too_large']);

    // Without a Content-Length (chunked), the multipart reader stops at 5 MB by itself.
    const encoded = new Response(form);
    const chunked = await fetch(`${server.url}/api/people/${id}/photo`, {
      method: 'PUT',
      headers: {
        'content-type': encoded.headers.get('content-type')!,
        cookie: `${SESSION_COOKIE}=${admin.cookie(SESSION_COOKIE)}; ${CSRF_COOKIE}=${admin.cookie(CSRF_COOKIE)}`,
        [CSRF_HEADER]: await admin.csrf(),
      },
      body: encoded.body,
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);

    await expect(server.ctx.photos.ingest(huge)).rejects.toMatchObject({ status: 413 });

    const bomb = await pixelBombPng();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const bombReply = await putPhoto(admin, id, bomb, 'image/png');
    expect([bombReply.status, bombReply.json?.error?.code]).toEqual([413, 'payload_too_large']);
    expect(bombReply.json?.error?.message).toMatch(/10000 × 10000 pixels/);
    expect((await server.ctx.models.Person.findByPk(id))!.photoSha256).toBeNull();
  }, 120_000);

  test('GET answers 404 when the person has no photo', async () => {
    const reply = await send(
      admin,
      'GET',
      `/api/people/${await person(server, orgId)}/photo`,
      undefined,
    );
    expect([reply.status, reply.json?.error?.code]).toEqual([404, 'not_found']);
  });

  test('another organization gets 404 on GET and PUT; an operator may look but not upload', async () => {
    const id = await person(server, orgId);
    const image = await plainJpeg(200, 200, 120);
    expect((await putPhoto(admin, id, image)).status).toBe(200);

    const crossGet = await send(otherAdmin, 'GET', `/api/people/${id}/photo`, undefined);
    expect([crossGet.status, crossGet.json?.error?.code]).toEqual([404, 'not_found']);
    const crossPut = await putPhoto(otherAdmin, id, await plainJpeg(200, 200, 1));
    expect([crossPut.status, crossPut.json?.error?.code]).toEqual([404, 'not_found']);

    expect((await send(operator, 'GET', `/api/people/${id}/photo`, undefined)).status).toBe(200);
    const operatorPut = await putPhoto(operator, id, await plainJpeg(200, 200, 2));
    expect([operatorPut.status, operatorPut.json?.error?.code]).toEqual([403, 'forbidden']);

    const anonymous = await fetch(`${server.url}/api/people/${id}/photo`);
    expect(anonymous.status).toBe(401);
    // Nobody but the owner organization's administrator changed it.
    expect((await server.ctx.models.Person.findByPk(id))!.version).toBe(2);
  });

  test('path traversal and malformed ids never reach a file', async () => {
    const ids = [
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '..%2f..%2ffiles',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      'abc%00def',
      '%00',
      '..',
      `${'a'.repeat(5000)}`,
      `${randomUUID()}%2F..%2F..`,
      '..%5C..%5Cwindows',
    ];
    for (const bad of ids) {
      for (const method of ['GET', 'PUT']) {
        const reply = await send(
          admin,
          method,
          `/api/people/${bad}/photo`,
          method === 'PUT' ? await plainJpeg(50, 50) : undefined,
          method === 'PUT' ? { 'content-type': 'image/jpeg' } : {},
        );
        expect([400, 404]).toContain(reply.status);
        expect(reply.bytes.includes(Buffer.from('root:'))).toBe(false);
      }
    }
    expect(await server.ctx.photos.read('../../etc/passwd')).toBeUndefined();
    expect(await server.ctx.photos.read(`${'0'.repeat(63)}/`)).toBeUndefined();
    expect(await server.ctx.photos.releaseIfUnreferenced('../../x')).toBe(false);
  });

  test('replacing a photo removes the old file, unless another person still uses it', async () => {
    const first = await plainJpeg(300, 300, 201);
    const second = await plainJpeg(300, 300, 202);
    const alone = await person(server, orgId);
    const old = (await putPhoto(admin, alone, first)).json!.photoSha256!;
    expect(await exists(filePath(old))).toBe(true);
    const next = (await putPhoto(admin, alone, second)).json!.photoSha256!;
    expect(next).not.toBe(old);
    expect(await exists(filePath(old))).toBe(false);
    expect(await server.ctx.models.File.findByPk(old)).toBeNull();
    expect(await server.ctx.models.Person.findByPk(alone)).toMatchObject({
      photoSha256: next,
      version: 3,
    });

    const shared = await plainJpeg(300, 300, 203);
    const a = await person(server, orgId);
    const b = await person(server, orgId);
    const sha = (await putPhoto(admin, a, shared)).json!.photoSha256!;
    expect((await putPhoto(admin, b, shared)).json!.photoSha256).toBe(sha);
    await putPhoto(admin, a, await plainJpeg(300, 300, 204));
    expect(await exists(filePath(sha))).toBe(true);
    expect(await server.ctx.models.File.findByPk(sha)).not.toBeNull();
    expect(await server.ctx.photos.releaseIfUnreferenced(sha)).toBe(false);
    const got = await send(admin, 'GET', `/api/people/${b}/photo`, undefined);
    expect(sha256(got.bytes)).toBe(sha);
  });

  test('sweepOrphans removes unreferenced rows and stray files once past the grace period', async () => {
    const referenced = await person(server, orgId);
    const kept = (await putPhoto(admin, referenced, await plainJpeg(100, 100, 50))).json!
      .photoSha256!;
    const orphan = await server.ctx.photos.ingest(await plainJpeg(100, 100, 51));
    const strayHash = sha256(Buffer.from('stray'));
    const stray = filePath(strayHash);
    await mkdir(path.dirname(stray), { recursive: true });
    await writeFile(stray, 'stray bytes');
    const temp = `${filePath(kept)}.0123456789ab.tmp`;
    await writeFile(temp, 'half written');
    const unrelated = path.join(path.dirname(stray), 'README');
    await writeFile(unrelated, 'not ours');

    // Within the grace period nothing goes: an upload stores its file before its reference.
    expect(await server.ctx.photos.sweepOrphans()).toBe(0);
    expect(await exists(filePath(orphan.sha256))).toBe(true);
    expect(await exists(stray)).toBe(true);

    const removed = await storeAhead(2 * 3_600_000).sweepOrphans();
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(await exists(filePath(orphan.sha256))).toBe(false);
    expect(await server.ctx.models.File.findByPk(orphan.sha256)).toBeNull();
    expect(await exists(stray)).toBe(false);
    expect(await exists(temp)).toBe(false);
    expect(await exists(unrelated)).toBe(true);
    expect(await exists(filePath(kept))).toBe(true);
    expect(await server.ctx.models.File.findByPk(kept)).not.toBeNull();
  });

  test('the hourly file-cleanup job is registered and running', () => {
    expect(server.ctx.jobs.status()['file-cleanup']).toBe('running');
  });
});
