/**
 * Issue 30, the import's result as an administrator reads it: a ZIP entry with a path in its
 * name is named as not read (the rest is imported), a photo without a face leaves the person
 * saved without it in the same words as the person form, photos that matched no row are
 * listed, a space is named by the path the site shows, and counts are said with plurals, in
 * English and in Chinese.
 */
import sharp from 'sharp';
import type { Page } from '@playwright/test';
import { expect, test as plainTest, testWithFaces as test } from './data-fixtures';
import { ImportPage } from './bulk-pages';
import { PersonFormPage, signIn } from './data-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';
import { storedZip } from './support/zip';

const blankJpeg = () =>
  sharp({
    create: { width: 400, height: 400, channels: 3, background: { r: 128, g: 128, b: 128 } },
  })
    .jpeg()
    .toBuffer();

/** Takes the result's screenshots at both widths (looked at by the developer). */
async function screenshots(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: test.info().outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNothingClippedAt390(page);
  await page.screenshot({ path: test.info().outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('import result: entries not read, saved without a photo as in the form, photos left over', async ({
  page,
  browser,
  faceSite,
}) => {
  test.setTimeout(180_000);
  const { api, admin, stack } = faceSite;
  const t = tag();
  const blank = await blankJpeg();
  const hq = await api.createSpace(`HQ ${t}`);
  await api.post('/api/spaces', { name: 'Floor 1', parentId: hq.id });

  // The person form with a photo that shows no face: saved without it, the form says why.
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(`Form ${t}`);
  await form.idNumber.fill(`FORM${t}`);
  await form.photo.setInputFiles({ name: 'blank.jpg', mimeType: 'image/jpeg', buffer: blank });
  await form.create.click();
  await expect(form.error).toContainText('The photo was refused: no face found', {
    timeout: 60_000,
  });
  await expect(form.errorTitle).toHaveText('Saved without a photo');
  // Now the person's edit form, the photo kept chosen, with the face check's "use it anyway".
  await expect(form.chosenPhoto).toContainText('blank.jpg');
  await expect(page.getByRole('checkbox', { name: 'Use this photo anyway' })).toBeVisible();
  const formWords = (await form.fieldError(form.chosenPhoto)).trim();
  expect(formWords).toMatch(/^The photo was refused: no face found/);

  const csv = ['name,idNumber,spaces', `Row ${t},ROW${t},HQ ${t} › Floor 1`].join('\n');
  const photos = storedZip({
    [`ROW${t}.jpg`]: blank,
    '../../evil.jpg': blank,
    'C:\\photos\\evil.jpg': blank,
    'notes.txt': Buffer.from('not a photo'),
    [`STRAY${t}.jpg`]: blank,
  });
  const importing = new ImportPage(page);
  await importing.goto();
  await importing.start({ csv: Buffer.from(csv), photos });
  await expect(importing.state).toHaveText('Finished', { timeout: 60_000 });
  await expect(importing.counts).toHaveText('1 of 1 row (100 %): 1 imported, 0 refused');

  const without = page.getByRole('table', { name: '1 row saved without a photo' });
  await expect(without.getByRole('row').nth(1)).toContainText(`ROW${t}`);
  // The same words as the person form's.
  await expect(without.getByRole('row').nth(1).getByRole('cell').nth(2)).toHaveText(
    `Saved without a photo: ${formWords}`,
  );
  // No row was refused, yet the rows to fix as CSV hold the one saved without its photo.
  const download = page.getByRole('link', { name: 'Download errors (CSV)' });
  const rowsToFix = await page.request.get((await download.getAttribute('href'))!);
  expect(await rowsToFix.text()).toContain(
    `ROW${t},"Saved without a photo: The photo was refused: `,
  );

  const entries = page.getByRole('table', { name: '3 files in the ZIP were not read' });
  await expect(entries.getByRole('row')).toHaveCount(4);
  await expect(entries.getByRole('row').nth(1)).toContainText('../../evil.jpg');
  await expect(entries.getByRole('row').nth(1)).toContainText('its name leads out of the folder');
  await expect(entries.getByRole('row').nth(2)).toContainText('its name holds a backslash');
  await expect(entries.getByRole('row').nth(3)).toContainText(
    'only .jpg, .jpeg and .png photos are imported',
  );
  await expect(page.getByTestId('import-unmatched')).toHaveText(
    `1 photo matched no row: STRAY${t}.jpg. Photos are matched by the ID number in their name, e.g. AB-1001.jpg.`,
  );
  const person = (await api.get(`/api/people?q=ROW${t}`)) as {
    items: { photoSha256: string | null; spaceIds: string[] }[];
  };
  expect(person.items[0]).toMatchObject({ photoSha256: null, spaceIds: [expect.any(String)] });
  await expectAccessible(page);
  await screenshots(page, 'import-result');

  // The same result in a Chinese session: its counts and reasons in Chinese, plurals included.
  const zh = await browser.newContext({ locale: 'zh-CN', baseURL: stack.webURL });
  try {
    const zhPage = await zh.newPage();
    await zhPage.goto('/import');
    await zhPage.getByLabel('用户名', { exact: true }).fill(admin.username);
    await zhPage.getByLabel('密码', { exact: true }).fill(admin.password);
    await zhPage.getByRole('button', { name: '登录', exact: true }).click();
    const latest = zhPage.getByTestId('import-latest');
    await expect(latest.getByTestId('import-counts')).toHaveText(
      '已处理 1/1 行（100%）：导入 1 行，拒绝 0 行',
      { timeout: 30_000 },
    );
    await expect(zhPage.getByRole('table', { name: '1 行已保存，但没有照片' })).toContainText(
      '已保存，但没有照片：照片未通过人脸检测：未找到人脸',
    );
    await expect(zhPage.getByRole('table', { name: 'ZIP 中有 3 个文件未读取' })).toContainText(
      '未读取：其名称指向文件夹之外',
    );
    await expect(zhPage.getByTestId('import-unmatched')).toContainText(
      `1 张照片没有对应的行：STRAY${t}.jpg。`,
    );
    await expectAccessible(zhPage);
    await screenshots(zhPage, 'import-result-zh');
  } finally {
    await zh.close();
  }
});

plainTest(
  'import check: one row is said as one row, and a space path the site shows is taken',
  async ({ page, admin, adminApi: api }) => {
    plainTest.setTimeout(90_000);
    const t = tag();
    const a = await api.createSpace(`Tower ${t}`);
    const b = await api.createSpace(`Annex ${t}`);
    await api.post('/api/spaces', { name: 'Lobby', parentId: a.id });
    await api.post('/api/spaces', { name: 'Lobby', parentId: b.id });
    await signIn(page, admin, '/import');
    const importing = new ImportPage(page);
    // A ZIP of photos chosen beside the CSV: the check of the whole file still runs.
    await importing.choose('Photos (ZIP, optional)', {
      name: 'photos.zip',
      mimeType: 'application/zip',
      buffer: storedZip({ [`ONE${t}.jpg`]: await blankJpeg() }),
    });
    const check = async (csv: string) => {
      await importing.chooseCsv({
        name: 'people.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csv),
      });
      await importing.form.getByRole('button', { name: 'Check file' }).click();
    };
    await check(`name,idNumber,spaces\nOne ${t},ONE${t},Tower ${t} › Lobby\n`);
    await expect(importing.checkResult()).toContainText(
      'The 1 row can be imported. Nothing was imported yet.',
    );
    await check(`name,idNumber,spaces\nOne ${t},ONE${t},Lobby\n`);
    await expect(importing.checkResult()).toContainText('1 of 1 row would be refused');
    await expect(importing.checkResult()).toContainText(
      `spaces: several spaces are named "Lobby" (Annex ${t} › Lobby; Tower ${t} › Lobby); write the path of the one you mean, e.g. "Annex ${t} › Lobby".`,
    );
    await expectAccessible(page);
  },
);

plainTest(
  'the check before an import lists the ZIP entries it would not read and the photos left over',
  async ({ page, admin, adminApi }) => {
    const t = tag();
    const blank = await blankJpeg();
    const before = await adminApi.get('/api/imports');
    await signIn(page, admin, '/import');
    const importing = new ImportPage(page);
    await importing.chooseCsv({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['name,idNumber', `Row ${t},ROW${t}`].join('\n')),
    });
    await importing.choose('Photos (ZIP, optional)', {
      name: 'photos.zip',
      mimeType: 'application/zip',
      buffer: storedZip({
        [`ROW${t}.jpg`]: blank,
        '../../evil.jpg': blank,
        [`STRAY${t}.jpg`]: blank,
      }),
    });
    await importing.form.getByRole('button', { name: 'Check file' }).click();
    await expect(importing.checkResult()).toContainText('The file is fine');
    const entries = page.getByRole('table', { name: '1 file in the ZIP was not read' });
    await expect(entries.getByRole('row')).toHaveCount(2);
    await expect(entries.getByRole('row').nth(1)).toContainText('../../evil.jpg');
    await expect(page.getByTestId('import-unmatched')).toContainText(
      `1 photo matched no row: STRAY${t}.jpg.`,
    );
    await expectAccessible(page, 'the check with a ZIP');
    // Nothing was written: no import started, nobody created.
    expect(await adminApi.get('/api/imports')).toEqual(before);
    expect(await adminApi.get(`/api/people?q=ROW${t}`)).toMatchObject({ items: [] });
  },
);
