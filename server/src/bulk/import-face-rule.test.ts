import type { ImportJobOut, PersonOut } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { finished, upload, zip } from '../test/imports.js';
import { putPhoto } from '../test/images.js';
import { blankPhoto, FACES, faceCrop } from '../test/faces.js';
import { suiteServer } from '../test/suite.js';

type Refusal = { error: { code: string; message: string; params: Record<string, unknown> } };

/**
 * Issue 30: a photo without a face is one rule in the person form and in the import. The same
 * check refuses it with the same reasons, and the person is saved without the photo either way
 * (a person already there keeps the photo they had); the import's result says why, in the words
 * the form shows.
 */
describe.each(DIALECTS)('a refused face in the form and the import on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;

  const suite = suiteServer(dialect, {
    env: { FACE_CHECK: 'on' },
  });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
  }, 60_000);

  const personBy = async (idNumber: string) =>
    ((await admin.get(`/api/people?q=${idNumber}`)).body as { items: PersonOut[] }).items.find(
      (p) => p.idNumber === idNumber,
    );

  test('no face: saved without the photo in both, for the same reasons', async () => {
    const blank = await blankPhoto();
    // The person form: the person is created, then their photo is sent and refused.
    const created = await admin.post('/api/people', { name: 'Form Person', idNumber: 'FR-FORM' });
    expect(created.status).toBe(201);
    const formPerson = created.body as PersonOut;
    const refused = await putPhoto(admin, formPerson.id, blank);
    expect(refused.status).toBe(422);
    const formError = (refused.json as unknown as Refusal).error;
    expect(formError.code).toBe('face_check_failed');
    expect((await personBy('FR-FORM'))?.photoSha256).toBeNull();

    // The import of the same photo: the row is saved without it, and says why.
    const started = await upload(admin, {
      csv: 'name,idNumber\nImport Person,FR-IMP\n',
      photos: await zip({ 'FR-IMP.jpg': blank }),
    });
    const job = (await finished(admin, started.body.id, 120_000)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ state: 'succeeded', succeeded: 1, failed: 0, errors: [] });
    const imported = await personBy('FR-IMP');
    expect(imported).toMatchObject({ name: 'Import Person', photoSha256: null });
    expect(job.photos?.withoutPhotoCount).toBe(1);
    expect(job.photos?.withoutPhoto).toEqual([
      {
        row: 2,
        idNumber: 'FR-IMP',
        // The same sentence as the form's refusal, after the form's own "Saved without a photo".
        error: `Saved without a photo: ${formError.message}`,
        reasons: [{ code: 'face_refused', params: formError.params }],
      },
    ]);
    expect(formError.message).toMatch(/^The photo was refused: no face found/);
  }, 120_000);

  test('a person already there keeps their photo; the row’s other values are saved', async () => {
    const good = await faceCrop(FACES.sample3Left);
    const first = await upload(admin, {
      csv: 'name,idNumber\nKeeps Photo,FR-KEEP\n',
      photos: await zip({ 'FR-KEEP.jpg': good }),
    });
    const firstJob = (await finished(admin, first.body.id, 120_000)) as unknown as ImportJobOut;
    expect(firstJob).toMatchObject({ succeeded: 1, photos: { withoutPhotoCount: 0 } });
    const before = (await personBy('FR-KEEP'))!.photoSha256;
    expect(before).toEqual(expect.any(String));

    const again = await upload(admin, {
      csv: 'name,idNumber\nKeeps Photo Renamed,FR-KEEP\n',
      photos: await zip({ 'FR-KEEP.jpg': await blankPhoto() }),
    });
    const job = (await finished(admin, again.body.id, 120_000)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ succeeded: 1, failed: 0, photos: { withoutPhotoCount: 1 } });
    expect(await personBy('FR-KEEP')).toMatchObject({
      name: 'Keeps Photo Renamed',
      photoSha256: before,
    });
  }, 120_000);
});
