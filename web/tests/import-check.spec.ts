import { readFileSync } from 'node:fs';
import { expect, test } from './data-fixtures';
import { ImportPage } from './bulk-pages';
import { signIn } from './data-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectPhoneLayout } from './support/checks';

/** The start of a JPEG: what a person gets when they pick a photo as the CSV. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1]);

test('import: a photo picked as the CSV is refused before any import starts', async ({
  page,
  admin,
}) => {
  test.setTimeout(90_000);
  await signIn(page, admin, '/import');
  const importing = new ImportPage(page);
  // Refused in the browser by its name and type...
  await importing.chooseCsv({ name: 'face.jpg', mimeType: 'image/jpeg', buffer: JPEG });
  await importing.form.getByRole('button', { name: 'Start import' }).click();
  await expect(importing.csvError()).toBeVisible();
  // ...and by the server from its bytes, whatever it is called.
  await importing.chooseCsv({ name: 'people.csv', mimeType: 'text/csv', buffer: JPEG });
  await importing.form.getByRole('button', { name: 'Start import' }).click();
  await expect(importing.csvError()).toBeVisible();
  await expect(importing.form.getByRole('button', { name: 'Start import' })).toBeEnabled();
  await expect(importing.latest).toHaveCount(0);
  await expectAccessible(page);
});

test('import: a CSV template to download, and the whole file checked before anything is written', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  await signIn(page, admin, '/import');
  const importing = new ImportPage(page);

  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download a CSV template' }).click();
  const template = readFileSync(await (await download).path(), 'utf8').split('\n');
  expect(template[0]).toBe('name,idNumber,phone,notes,validFrom,validUntil,enabled,spaces');

  const csv = [
    'name,idNumber,validFrom,enabled',
    `Fine ${t},CK${t}A,2026-01-31,true`,
    `Late ${t},CK${t}B,31/01/2026,`,
    `Unsure ${t},CK${t}C,,maybe`,
  ].join('\n');
  await importing.chooseCsv({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await importing.form.getByRole('button', { name: 'Check file' }).click();
  const result = importing.checkResult();
  await expect(result).toContainText('2 of 3 rows would be refused');
  const rows = result.getByRole('table', { name: 'Rows that would be refused' }).getByRole('row');
  await expect(rows.nth(1)).toContainText('validFrom: use YYYY-MM-DD');
  await expect(rows.nth(2)).toContainText('enabled: use true or false (got "maybe")');
  // Nothing was written: no import, no person.
  await expect(importing.latest).toHaveCount(0);
  const found = (await adminApi.get(`/api/people?q=CK${t}`)) as { total: number };
  expect(found.total).toBe(0);
  await expectAccessible(page);
  await expectPhoneLayout(page);
  await page.screenshot({ path: test.info().outputPath('check-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: test.info().outputPath('check-1280.png'), fullPage: true });
});

test('import: a CSV that cannot be read says on which line and what is wrong; a row of too many cells too', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await signIn(page, admin, '/import');
  const importing = new ImportPage(page);
  const check = importing.form.getByRole('button', { name: 'Check file' });

  const broken = ['name,idNumber', `Anna ${t},LN${t}A`, `"Bob ${t},LN${t}B`, `Carl ${t},LN${t}C`];
  await importing.chooseCsv({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(broken.join('\n')),
  });
  await check.click();
  await expect(
    importing.form.getByText('Line 3: a cell starts with a quote (") that is never closed.'),
  ).toBeVisible();
  await expect(importing.form.getByRole('button', { name: 'Start import' })).toBeDisabled();
  await expectAccessible(page);

  const shifted = ['name,idNumber,phone', `Smith, John ${t},LN${t}D,123`, `Anna ${t},LN${t}E,`];
  await importing.chooseCsv({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(shifted.join('\n')),
  });
  await check.click();
  const rows = importing
    .checkResult()
    .getByRole('table', { name: 'Rows that would be refused' })
    .getByRole('row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText(
    'This row has 4 cells but the header has 3: a cell that holds a comma must be in quotes (").',
  );
  const found = (await adminApi.get(`/api/people?q=LN${t}`)) as { total: number };
  expect(found.total).toBe(0);
});
