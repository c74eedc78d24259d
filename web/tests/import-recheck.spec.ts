/**
 * A check's verdict belongs to the files it read: choosing another CSV or ZIP after "The file is
 * fine" clears it, and the new files are checked before Start (tester finding, site3 round).
 */
import { expect, test } from './data-fixtures';
import { ImportPage } from './bulk-pages';
import { signIn } from './data-pages';
import { tag } from './support/admin-api';

test('import: choosing another CSV or ZIP after a check clears the verdict until checked again', async ({
  page,
  admin,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  await signIn(page, admin, '/import');
  const importing = new ImportPage(page);
  const start = importing.form.getByRole('button', { name: 'Start import' });
  const check = importing.form.getByRole('button', { name: 'Check file' });
  const again = importing.form.getByTestId('import-check-again');
  const csv = (id: string) => Buffer.from(['name,idNumber', `Re ${t},${id}`].join('\n'), 'utf8');

  await importing.chooseCsv({ name: 'first.csv', mimeType: 'text/csv', buffer: csv(`RC${t}A`) });
  await check.click();
  await expect(importing.checkResult()).toContainText('The file is fine');
  await expect(start).toBeEnabled();

  // Another CSV: the old verdict goes and Start waits for the check.
  await importing.chooseCsv({ name: 'second.csv', mimeType: 'text/csv', buffer: csv('bad id!') });
  await expect(importing.checkResult()).toHaveCount(0);
  await expect(start).toBeDisabled();
  await expect(again).toHaveText('Another file was chosen: check it before you import it.');
  await check.click();
  await expect(importing.checkResult()).toContainText('1 of 1 row would be refused');
  await expect(again).toHaveCount(0);
  await expect(start).toBeEnabled();

  // A ZIP chosen after the check: the same.
  await importing.choose('Photos (ZIP, optional)', {
    name: 'photos.zip',
    mimeType: 'application/zip',
    buffer: Buffer.from('PK\u0005\u0006' + '\u0000'.repeat(18), 'latin1'),
  });
  await expect(importing.checkResult()).toHaveCount(0);
  await expect(start).toBeDisabled();
  await check.click();
  await expect(importing.checkResult()).toBeVisible();
  await expect(start).toBeEnabled();
});
