import { errorBody, type ImportJobOut } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { finished, upload, zip, zipDeclaring } from '../test/imports.js';
import { plainJpeg } from '../test/images.js';
import { MAX_ZIP_ENTRIES } from './sources.js';

/**
 * Issue 34: what an import says about its files (a ZIP of photos that is none, holds too many
 * entries or is damaged, a file over its size) comes by code and values, beside the field it
 * is about, so the site words it in its reader's language; the English stays for API users.
 */
describe.each(DIALECTS)('import files refused by code on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
  });

  const csv = 'name,idNumber\nZip Person,ZIP-001\n';
  const refusal = (body: unknown) => errorBody.parse(body).error;

  test('a photos file that is no ZIP: 400, its field by code', async () => {
    const reply = await upload(admin, { csv, photos: Buffer.from('this is not an archive') });
    expect(reply.status).toBe(400);
    expect(refusal(reply.body)).toMatchObject({
      code: 'invalid_input',
      fields: { photos: 'This is not a ZIP file: choose the .zip of photos named by ID number.' },
      fieldCodes: { photos: { code: 'not_zip' } },
    });
  });

  test('a ZIP of too many entries: 413, the counts as values, beside its field', async () => {
    const reply = await upload(admin, { csv, photos: zipDeclaring(MAX_ZIP_ENTRIES + 1) });
    expect(reply.status).toBe(413);
    const params = { entries: MAX_ZIP_ENTRIES + 1, max: MAX_ZIP_ENTRIES };
    expect(refusal(reply.body)).toMatchObject({
      code: 'payload_too_large',
      params: { ...params, reason: 'import_zip_entries' },
      fieldCodes: { photos: { code: 'import_zip_entries', params } },
    });
  });

  test('a CSV over its size: 413 with the limit, beside its field', async () => {
    const reply = await upload(admin, { csv: Buffer.alloc(20 * 1024 * 1024 + 1, 'a') });
    expect(reply.status).toBe(413);
    expect(refusal(reply.body)).toMatchObject({
      code: 'payload_too_large',
      params: { max: 20, reason: 'file_too_large' },
      fields: { csv: 'The file is larger than 20 MB.' },
      fieldCodes: { csv: { code: 'file_too_large', params: { max: 20 } } },
    });
  });

  test('a damaged ZIP fails the import by code; a damaged photo fails its row by code', async () => {
    const photos = await zip({
      'ZIP-001.jpg': await plainJpeg(64, 48),
      'ZIP-002.jpg': await plainJpeg(64, 48, 90),
    });
    // The central directory's first signature broken: the archive's index cannot be read.
    const directory = photos.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const broken = Buffer.from(photos);
    broken.writeUInt32LE(0x0badf00d, directory);
    const started = await upload(admin, { csv, photos: broken });
    expect(started.status).toBe(202);
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job.state).toBe('failed');
    expect(job.errors).toEqual([
      expect.objectContaining({ row: 0, reasons: [{ code: 'import_zip_unreadable' }] }),
    ]);

    // The second photo's stored bytes overwritten: its row is saved without it, saying why by
    // code (as the person form saves a person whose photo is refused, issue 30).
    const second = Buffer.from(photos);
    const local = second.indexOf(Buffer.from('ZIP-002.jpg')) + 'ZIP-002.jpg'.length;
    second.fill(0xff, local, local + 40);
    const rows = 'name,idNumber\nZip One,ZIP-001\nZip Two,ZIP-002\n';
    const again = await upload(admin, { csv: rows, photos: second });
    expect(again.status).toBe(202);
    const done = (await finished(admin, again.body.id)) as unknown as ImportJobOut;
    expect(done).toMatchObject({ state: 'succeeded', succeeded: 2, failed: 0, errors: [] });
    expect(done.photos?.withoutPhoto).toEqual([
      expect.objectContaining({
        row: 3,
        idNumber: 'ZIP-002',
        reasons: [{ code: 'import_photo_unreadable' }],
      }),
    ]);
  });
});
