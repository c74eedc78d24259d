import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ImportCheckOut, ImportJobOut, PersonOut } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { finished, rawZip, upload } from '../test/imports.js';
import { plainJpeg } from '../test/images.js';
import { suiteServer } from '../test/suite.js';

/** Every file name under `dir`, recursively. */
async function namesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.map((e) => e.name);
}

/**
 * Issue 30: a ZIP of photos whose entries hold paths, or photos that match no row, no longer
 * stop the import or vanish without a word: each entry not read is named with why, the rest
 * is imported, and nothing is ever written where an entry's name points.
 */
describe.each(DIALECTS)('an import’s ZIP entries on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
  });

  const personBy = async (idNumber: string) =>
    ((await admin.get(`/api/people?q=${idNumber}`)).body as { items: PersonOut[] }).items.find(
      (p) => p.idNumber === idNumber,
    );

  test('entries with paths are refused by name, the rest imported, nothing written', async () => {
    const photo = await plainJpeg(64, 48);
    const photos = rawZip({
      'ZP-001.jpg': photo,
      '../../evil.jpg': photo,
      '../ZP-002.jpg': photo,
      '/tmp/evil-absolute.jpg': photo,
      'C:/evil-drive.jpg': photo,
      'dir\\ZP-002.jpg': photo,
      'folder/ZP-003.jpg': photo,
      'notes.txt': Buffer.from('hello'),
      'ZP-001.png': photo,
      '__MACOSX/._ZP-001.jpg': Buffer.from('fork'),
      'STRAY-1.jpg': photo,
      'folder/STRAY-2.JPG': photo,
      'ZP-BAD.jpg': photo,
    });
    const csv = [
      'name,idNumber,validFrom',
      'Zip One,ZP-001,',
      'Zip Two,ZP-002,',
      'Zip Three,ZP-003,',
      'Zip Bad,ZP-BAD,31/01/2026',
    ].join('\n');
    // The check before the import reads the ZIP too, and writes nothing (issue 30).
    const checked = await upload(admin, { csv, photos }, '/api/imports/people/check');
    expect(checked.status).toBe(200);
    const check = checked.body as unknown as ImportCheckOut;
    expect(check).toMatchObject({ total: 4, failed: 1 });
    expect(await personBy('ZP-001')).toBeUndefined();
    const started = await upload(admin, { csv, photos });
    expect(started.status).toBe(202);
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ state: 'succeeded', total: 4, succeeded: 3, failed: 1 });
    expect(job.errors.map((e) => e.row)).toEqual([5]);
    const notRead = (entry: string, code: string, params = {}) => ({
      entry,
      reasons: [{ code, params }],
    });
    expect(job.photos).toEqual({
      withoutPhoto: [],
      withoutPhotoCount: 0,
      refusedEntries: [
        notRead('../../evil.jpg', 'import_entry_parent'),
        notRead('../ZP-002.jpg', 'import_entry_parent'),
        notRead('/tmp/evil-absolute.jpg', 'import_entry_absolute'),
        notRead('C:/evil-drive.jpg', 'import_entry_absolute'),
        notRead('dir\\ZP-002.jpg', 'import_entry_backslash'),
        notRead('notes.txt', 'import_entry_not_photo'),
        notRead('ZP-001.png', 'import_entry_twice', { other: 'ZP-001.jpg' }),
      ],
      refusedEntryCount: 7,
      // The refused row's photo matched its row: it is not "unmatched".
      unmatched: ['STRAY-1.jpg', 'folder/STRAY-2.JPG'],
      unmatchedCount: 2,
    });
    expect(check.photos).toEqual(job.photos);
    expect((await personBy('ZP-001'))?.photoSha256).toEqual(expect.any(String));
    expect((await personBy('ZP-002'))?.photoSha256).toBeNull();
    expect((await personBy('ZP-003'))?.photoSha256).toEqual(expect.any(String));

    // No path traversal: nothing named after an entry exists around the data directory.
    const around = [
      ...(await namesUnder(suite.scratch.dataDir)),
      ...(await readdir(path.dirname(suite.scratch.dataDir))),
      ...(await readdir(path.dirname(path.dirname(suite.scratch.dataDir)))),
    ];
    expect(around.filter((n) => /evil|STRAY|ZP-/.test(n))).toEqual([]);
  });

  test('a ZIP whose every photo matches a row says nothing is left over', async () => {
    const photos = rawZip({ 'ZQ-001.jpg': await plainJpeg(64, 48) });
    const started = await upload(admin, { csv: 'name,idNumber\nZip Q,ZQ-001\n', photos });
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job.photos).toMatchObject({ refusedEntryCount: 0, unmatchedCount: 0, unmatched: [] });
    // Without a ZIP there is no photo report at all.
    const plain = await upload(admin, { csv: 'name,idNumber\nZip R,ZR-001\n' });
    expect(((await finished(admin, plain.body.id)) as unknown as ImportJobOut).photos).toBeNull();
  });

  test('spaces by the path the site shows; an ambiguous or unknown one names the field', async () => {
    const space = async (name: string, parentId?: string) => {
      const reply = await admin.post('/api/spaces', { name, ...(parentId && { parentId }) });
      expect(reply.status).toBe(201);
      return (reply.body as { id: string }).id;
    };
    const hq = await space('HQ Building');
    const floor = await space('Floor 1', hq);
    const annex = await space('Annex');
    await space('Floor 1', annex);
    const csv = [
      'name,idNumber,spaces',
      'Path One,SP-001,HQ Building › Floor 1',
      'Path Two,SP-002,hq building > floor 1; Annex',
      'Path Three,SP-003,Floor 1',
      'Path Four,SP-004,HQ Building › Floor 9',
    ].join('\n');
    const expected = [
      [
        4,
        [
          {
            code: 'import_ambiguous_space',
            params: {
              field: 'spaces',
              space: 'Floor 1',
              paths: 'Annex › Floor 1; HQ Building › Floor 1',
              example: 'Annex › Floor 1',
            },
          },
        ],
      ],
      [
        5,
        [{ code: 'import_no_space', params: { field: 'spaces', space: 'HQ Building › Floor 9' } }],
      ],
    ];
    const check = (await upload(admin, { csv }, '/api/imports/people/check'))
      .body as unknown as ImportCheckOut;
    expect(check.errors.map((e) => [e.row, e.reasons])).toEqual(expected);
    expect(check.errors[0]!.error).toBe(
      'spaces: several spaces are named "Floor 1" (Annex › Floor 1; HQ Building › Floor 1); write the path of the one you mean, e.g. "Annex › Floor 1".',
    );
    const started = await upload(admin, { csv });
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ succeeded: 2, failed: 2 });
    expect(job.errors.map((e) => [e.row, e.reasons])).toEqual(expected);
    expect((await personBy('SP-001'))?.spaceIds).toEqual([floor]);
    expect(new Set((await personBy('SP-002'))?.spaceIds)).toEqual(new Set([floor, annex]));
  });
});
