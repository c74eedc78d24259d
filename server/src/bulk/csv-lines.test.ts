import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatMessage, type ImportCheckOut, type ImportRowReason } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { signedIn } from '../test/admins.js';
import { finished, upload } from '../test/imports.js';
import { suiteServer } from '../test/suite.js';
import { ImportRefusal, countCsv, readCsv } from './sources.js';

/** What reading `text` as an import CSV refuses the file for: its reasons, or none. */
async function refusedFor(text: string): Promise<ImportRowReason[] | null> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-csv-'));
  const file = path.join(dir, 'people.csv');
  await writeFile(file, text);
  try {
    await countCsv(file);
    for await (const _record of readCsv(file)) void _record;
    return null;
  } catch (err) {
    if (err instanceof ImportRefusal) return err.reasons;
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a CSV that cannot be read says on which line, and what is wrong', () => {
  test.each([
    [
      'a quote never closed',
      'name,idNumber\nAnna,A1\n"Bob,B2\nCarl,C3\n',
      'import_quote_not_closed',
      3,
    ],
    [
      'a quote never closed, after empty lines and a cell of two lines (CRLF)',
      'name,idNumber,notes\r\nAnna,A1,"two\r\nlines"\r\n\r\n\r\nBob,B2,"x\r\nCarl,C3\r\n',
      'import_quote_not_closed',
      6,
    ],
    [
      'text after a closing quote',
      'name,idNumber\nAnna,A1\n"Bob" Jr,B2\n',
      'import_text_after_quote',
      3,
    ],
    [
      'text after a closing quote, in a cell of two lines',
      'name,idNumber,notes\nAnna,A1,"two\nli"nes"\nBob,B2\n',
      'import_text_after_quote',
      3,
    ],
    [
      'a quote inside a cell',
      'name,idNumber\r\nAnna,A1\r\n\r\nBo"b,B2\r\n',
      'import_quote_in_cell',
      4,
    ],
    [
      'old Mac line ends',
      'name,idNumber\rAnna,A1\r"Bob,B2\rCarl,C3\r',
      'import_quote_not_closed',
      3,
    ],
  ])('%s', async (_what, text, code, line) => {
    expect(await refusedFor(text)).toEqual([{ code, params: { line } }]);
  });

  test('the English names the line, as each reason does', () => {
    expect(formatMessage('import_quote_not_closed', { line: 3 })).toMatch(/^Line 3: /);
    expect(formatMessage('import_text_after_quote', { line: 3 })).toMatch(/^Line 3: /);
    expect(formatMessage('import_quote_in_cell', { line: 3 })).toMatch(/^Line 3: /);
  });

  test('a well-formed file is read as before: short rows, empty lines, cells over two lines', async () => {
    expect(await refusedFor('name,idNumber,notes\nAnna,A1\n\n"Bob ""B""",B2,"two\nlines"\n')).toBe(
      null,
    );
  });
});

describe.each(DIALECTS)('an unreadable CSV or a row of too many cells, on %s', (dialect) => {
  const suite = suiteServer(dialect);

  test('the check and the import name the line; nothing is written', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = 'name,idNumber\nAnna,LINE-001\n"Bob,LINE-002\nCarl,LINE-003\n';
    const check = await upload(admin, { csv }, '/api/imports/people/check');
    expect(check.status).toBe(400);
    expect(check.body.error).toMatchObject({
      fieldCodes: { csv: { code: 'import_quote_not_closed', params: { line: 3 } } },
      fields: { csv: formatMessage('import_quote_not_closed', { line: 3 }) },
    });
    const job = await finished(admin, (await upload(admin, { csv })).body.id);
    expect(job.state).toBe('failed');
    expect(job.errors).toEqual([
      expect.objectContaining({
        row: 0,
        reasons: [{ code: 'import_quote_not_closed', params: { line: 3 } }],
      }),
    ]);
    expect(job.errors[0]!.error).toMatch(/^Line 3: /);
    expect(await suite.server.ctx.models.Person.count()).toBe(0);
  });

  test('a row with more cells than the header is refused, saying how many', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = [
      'name,idNumber,phone',
      'Smith, John,CELLS-001,123',
      'Anna,CELLS-002,,',
      'Bob,CELLS-003',
    ].join('\n');
    const reply = await upload(admin, { csv }, '/api/imports/people/check');
    expect(reply.status).toBe(200);
    const check = reply.body as unknown as ImportCheckOut;
    // Empty cells past the header (a spreadsheet's trailing commas) and short rows are read.
    expect(check).toMatchObject({ total: 3, failed: 1 });
    expect(check.errors.map((e) => [e.row, e.reasons, e.error])).toEqual([
      [
        2,
        [{ code: 'import_extra_cells', params: { cells: 4, columns: 3 } }],
        formatMessage('import_extra_cells', { cells: 4, columns: 3 }),
      ],
    ]);
  });
});

describe.each(DIALECTS)('a CSV with a header and no rows on %s', (dialect) => {
  const suite = suiteServer(dialect);

  test('is refused by the check and by Start, not "fine, all 0 rows"', async () => {
    expect(await refusedFor('name,idNumber\r\n')).toEqual([{ code: 'import_no_rows' }]);
    const admin = await signedIn(suite.server, 'admin');
    const csv = '姓名,证件号码\n\n';
    const check = await upload(admin, { csv }, '/api/imports/people/check');
    expect(check.status).toBe(400);
    expect(check.body.error).toMatchObject({
      fieldCodes: { csv: { code: 'import_no_rows' } },
    });
    const job = (await finished(admin, (await upload(admin, { csv })).body.id)) as unknown as {
      status: string;
      errors: { row: number; reasons: ImportRowReason[] }[];
    };
    expect(job.errors[0]).toMatchObject({ row: 0, reasons: [{ code: 'import_no_rows' }] });
  });
});
