import sharp from 'sharp';
import { formatMessage, type ImportCheckOut, type ImportJobOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { signedIn } from '../test/admins.js';
import { finished, upload } from '../test/imports.js';

describe.each(DIALECTS)('import: the file checked before anything is written, on %s', (dialect) => {
  const suite = suiteServer(dialect);

  test('a JPEG picked as the CSV is refused before an import starts', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const photo = await sharp({
      create: { width: 32, height: 32, channels: 3, background: { r: 1, g: 2, b: 3 } },
    })
      .jpeg()
      .toBuffer();
    for (const to of ['/api/imports/people', '/api/imports/people/check']) {
      const reply = await upload(admin, { csv: photo }, to);
      expect([reply.status, reply.body.error?.code]).toEqual([400, 'invalid_input']);
      expect(reply.body.error?.fields).toEqual({ csv: formatMessage('not_csv') });
    }
    expect(await suite.server.ctx.models.ImportJob.count()).toBe(0);
  });

  test('the check names each bad row, its field and the format, and writes nothing', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = [
      'name,idNumber,validFrom,enabled,spaces',
      'Good One,CHK-001,2026-01-31,true,',
      'Bad Date,CHK-002,31/01/2026,,',
      ',CHK-003,,,',
      'Bad Flag,CHK-004,,maybe,',
      'Nowhere,CHK-005,,,No Such Space',
      'Twice,CHK-001,,,',
      'No Such Day,CHK-006,2026-02-30,,',
      'No Such Hour,CHK-007,2026-03-01T24:30,,',
    ].join('\n');
    const reply = await upload(admin, { csv }, '/api/imports/people/check');
    expect(reply.status).toBe(200);
    const check = reply.body as unknown as ImportCheckOut;
    expect(check).toMatchObject({ total: 8, failed: 7, photos: null });
    expect(check.errors.map((e) => [e.row, e.error])).toEqual([
      [3, 'validFrom: use YYYY-MM-DD or YYYY-MM-DDTHH:MM (got "31/01/2026").'],
      [4, 'name: Required.'],
      [5, 'enabled: use true or false (got "maybe").'],
      [
        6,
        'spaces: there is no space "No Such Space"; write a space’s name, or its path as the site shows it (e.g. HQ Building › Floor 1); separate several with ;.',
      ],
      [7, 'idNumber: also on row 2 of this file; each ID number may appear once.'],
      // Not rolled over to 2026-03-02 or the next day: refused as no day of the calendar.
      [8, 'validFrom: "2026-02-30" is not a real date.'],
      [9, 'validFrom: "2026-03-01T24:30" is not a real date.'],
    ]);
    expect(check.errors.at(-2)!.reasons).toEqual([
      { code: 'import_not_real_date', params: { field: 'validFrom', value: '2026-02-30' } },
    ]);
    expect(check.errors[0]!.reasons).toEqual([
      {
        code: 'import_date',
        params: {
          field: 'validFrom',
          value: '31/01/2026',
          expected: 'YYYY-MM-DD or YYYY-MM-DDTHH:MM',
        },
      },
    ]);
    expect(await suite.server.ctx.models.Person.count()).toBe(0);
    expect(await suite.server.ctx.models.ImportJob.count()).toBe(0);
  });

  test('an ID number on a later row of the file: refused by the check and the import alike, naming both rows', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = [
      'name,idNumber',
      'First Holder,DUP-001',
      'Someone Else,DUP-002',
      'Second Holder,dup-001',
      'Third Holder,DUP-001',
    ].join('\n');
    const said = [
      [4, formatMessage('import_repeated_id', { field: 'idNumber', row: 2 })],
      [5, formatMessage('import_repeated_id', { field: 'idNumber', row: 2 })],
    ];
    expect(said[0]![1]).toBe(
      'idNumber: also on row 2 of this file; each ID number may appear once.',
    );
    const check = (await upload(admin, { csv }, '/api/imports/people/check'))
      .body as unknown as ImportCheckOut;
    expect(check).toMatchObject({ total: 4, failed: 2 });
    expect(check.errors.map((e) => [e.row, e.error])).toEqual(said);

    const started = await upload(admin, { csv });
    expect(started.status).toBe(202);
    const job = await finished(admin, started.body.id);
    expect(job).toMatchObject({ state: 'succeeded', total: 4, succeeded: 2, failed: 2 });
    expect(job.errors.map((e) => [e.row, e.error])).toEqual(said);
    // The first row stands: no later row of the file overwrote it.
    const people = await suite.server.ctx.models.Person.findAll({ order: [['idNumber', 'ASC']] });
    expect(people.map((p) => [p.idNumber, p.name])).toEqual([
      ['DUP-001', 'First Holder'],
      ['DUP-002', 'Someone Else'],
    ]);
  });

  test('a name with a control, bidi or only invisible characters: refused by its field in the check and the import', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = [
      'name,idNumber',
      'Fine Name,NAME-001',
      'Bell\u0007Name,NAME-002',
      '\u202Eevil,NAME-003',
      '\u200B\u200B,NAME-004',
    ].join('\n');
    const field = (problem: string) => ({
      code: 'import_field',
      params: { field: 'name', problem },
    });
    const said = [
      [
        3,
        'name: Remove control characters such as line breaks and tabs.',
        field('control_characters'),
      ],
      [4, `name: ${formatMessage('bidi_characters')}`, field('bidi_characters')],
      [5, `name: ${formatMessage('invisible_name')}`, field('invisible_name')],
    ];
    const check = (await upload(admin, { csv }, '/api/imports/people/check'))
      .body as unknown as ImportCheckOut;
    expect(check).toMatchObject({ total: 4, failed: 3 });
    expect(check.errors.map((e) => [e.row, e.error, ...(e.reasons ?? [])])).toEqual(said);

    const started = await upload(admin, { csv });
    expect(started.status).toBe(202);
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ state: 'succeeded', total: 4, succeeded: 1, failed: 3 });
    expect(job.errors.map((e) => [e.row, e.error, ...(e.reasons ?? [])])).toEqual(said);
  });

  test('a field the people rules refuse after the CSV check is said by its field, not "could not be saved"', async () => {
    const admin = await signedIn(suite.server, 'admin');
    // 64 characters with a "ß": 65 once canonical ("SS"), over the limit only then.
    const idNumber = `A${'1'.repeat(62)}ß`;
    const started = await upload(admin, { csv: `name,idNumber\nLong Id,${idNumber}\n` });
    expect(started.status).toBe(202);
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job).toMatchObject({ total: 1, failed: 1 });
    expect(job.errors[0]!.reasons).toEqual([
      { code: 'import_field', params: { field: 'idNumber', problem: 'too_long', max: 64 } },
    ]);
  });
});
