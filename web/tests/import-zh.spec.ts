/**
 * The import in a zh-CN session (tester findings on issue 34): a CSV saved by Excel on a
 * Chinese Windows (GBK), a file the check refuses, and refused rows said in Chinese.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { tag, type Account } from './support/admin-api';
import { storedZip } from './support/zip';

test.use({ locale: 'zh-CN' });

async function signInZh(page: Page, account: Account) {
  await page.goto('/import');
  await page.getByLabel('用户名', { exact: true }).fill(account.username);
  await page.getByLabel('密码', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await expect(page.getByRole('heading', { name: '批量导入', level: 1 })).toBeVisible();
}

/** The import form's CSV chooser, as a person uses it. */
async function chooseCsv(page: Page, buffer: Buffer) {
  const form = page.getByRole('form', { name: '新建导入' });
  const chooser = page.waitForEvent('filechooser');
  await form.getByRole('button', { name: '人员（CSV）' }).click();
  await (await chooser).setFiles({ name: 'people.csv', mimeType: 'text/csv', buffer });
  return form;
}

/** Chinese text as GB18030 (what Excel writes as "CSV" on a Chinese Windows): GBK for these. */
async function gbk(page: Page, text: string): Promise<Buffer> {
  // The browser has no GBK encoder either; the page decodes candidates byte by byte instead.
  const bytes = await page.evaluate((s) => {
    const decoder = new TextDecoder('gb18030');
    const table = new Map<string, number[]>();
    for (let hi = 0x81; hi <= 0xfe; hi++) {
      for (let lo = 0x40; lo <= 0xfe; lo++) {
        if (lo === 0x7f) continue;
        const ch = decoder.decode(new Uint8Array([hi, lo]));
        if (ch.length === 1 && !table.has(ch)) table.set(ch, [hi, lo]);
      }
    }
    const out: number[] = [];
    for (const ch of s) {
      const code = ch.charCodeAt(0);
      if (code < 0x80) out.push(code);
      else out.push(...table.get(ch)!);
    }
    return out;
  }, text);
  return Buffer.from(bytes);
}

test('a GBK CSV imports; a file the check refuses keeps Start disabled, said in Chinese', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  await signInZh(page, admin);
  const start = page.getByRole('button', { name: '开始导入' });

  // No 姓名 column: the check refuses the file, in Chinese, and Start waits for another file.
  let form = await chooseCsv(page, await gbk(page, `证件号码\nG${t}X`));
  await form.getByRole('button', { name: '检查文件' }).click();
  await expect(form.getByText('CSV 表头中没有“姓名”列。')).toBeVisible();
  await expect(start).toBeDisabled();
  await expect(page.getByTestId('import-fix-first')).toBeVisible();
  await expect(form).not.toContainText('column');

  // The same table as Excel saves it on a Chinese Windows: read as GB18030, checked, imported.
  form = await chooseCsv(page, await gbk(page, `姓名,证件号码\n张伟,G${t}A\n李娜,G${t}B\n`));
  // Another file after a check: it is checked before it can be imported.
  await expect(start).toBeDisabled();
  await expect(page.getByTestId('import-check-again')).toHaveText(
    '已选择其他文件：请先检查文件，再导入。',
  );
  await form.getByRole('button', { name: '检查文件' }).click();
  await expect(page.getByTestId('import-check')).toContainText('全部 2 行都可以导入');
  await start.click();
  await expect(page.getByTestId('import-state')).toHaveText('已完成', { timeout: 30_000 });
  const found = (await adminApi.get(`/api/people?q=G${t}`)) as { items: { name: string }[] };
  expect(found.items.map((p) => p.name).sort()).toEqual(['张伟', '李娜'].sort());
});

test('refused rows are said in Chinese, on the page and in the errors CSV', async ({
  page,
  admin,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  await signInZh(page, admin);
  const csv = ['姓名,证件号码,有效期自,启用', `,R${t}A,,`, `王芳,R${t}B,2026-02-30,`].join('\n');
  const form = await chooseCsv(page, Buffer.from(csv));
  await form.getByRole('button', { name: '检查文件' }).click();
  const check = page.getByTestId('import-check');
  await expect(check).toContainText('姓名：必填。');
  await expect(check).toContainText('有效期自：“2026-02-30”不是真实存在的日期。');
  await expect(check).not.toContainText(/Required|not a real date|validFrom/);
  // Refused rows do not stop an import: Start stays enabled.
  await page.getByRole('button', { name: '开始导入' }).click();
  const refused = page.getByRole('table', { name: '被拒绝的行' });
  await expect(refused).toContainText('有效期自：“2026-02-30”不是真实存在的日期。');
  await expect(refused).not.toContainText(/Required|not a real date/);

  const download = page.waitForEvent('download');
  await page
    .getByRole('link', { name: /下载错误/ })
    .first()
    .click();
  const text = readFileSync(await (await download).path(), 'utf8');
  expect(text).toContain('有效期自：“2026-02-30”不是真实存在的日期。');
  expect(text).not.toContain('not a real date');
});

test('a CSV that cannot be read names the line, in Chinese, in the check and the import', async ({
  page,
  admin,
}) => {
  const t = tag();
  await signInZh(page, admin);
  const csv = ['姓名,证件号码', `王芳,Q${t}A`, `"李娜,Q${t}B`, `张伟,Q${t}C`].join('\n');
  // Started without a check: the import fails as a whole, nothing imported, the file's line said.
  await chooseCsv(page, Buffer.from(csv));
  await page.getByRole('button', { name: '开始导入' }).click();
  const said = '第 3 行：某个单元格以引号（"）开头，但引号没有闭合。';
  await expect(page.getByTestId('import-state')).toHaveText('已停止', { timeout: 30_000 });
  await expect(page.getByRole('table', { name: '被拒绝的行' })).toContainText(said);
  // The check says the same beside the file.
  const form = await chooseCsv(page, Buffer.from(csv));
  await form.getByRole('button', { name: '检查文件' }).click();
  await expect(form.getByText(said)).toBeVisible();
  await expect(form).not.toContainText(/Line|quote/);
});

test('a photos file that is no ZIP, or a damaged one, is said in Chinese', async ({
  page,
  admin,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  await signInZh(page, admin);
  const form = await chooseCsv(page, Buffer.from(`姓名,证件号码\n赵敏,Z${t}A\n`));
  const choosePhotos = async (buffer: Buffer) => {
    const chooser = page.waitForEvent('filechooser');
    await form.getByRole('button', { name: '照片（ZIP，选填）' }).click();
    await (await chooser).setFiles({ name: 'photos.zip', mimeType: 'application/zip', buffer });
  };
  const start = page.getByRole('button', { name: '开始导入' });

  // Not an archive at all: refused before anything starts, beside the photos field.
  await choosePhotos(Buffer.from('这不是压缩包'));
  await start.click();
  await expect(
    form.getByText('这不是 ZIP 文件：请选择以证件号码命名照片的 .zip 压缩包。'),
  ).toBeVisible();
  await expect(form).not.toContainText(/ZIP archive|not a ZIP/);

  // An archive whose index is damaged: the import starts and stops, said as the file's fault.
  const zip = storedZip({ [`Z${t}A.jpg`]: Buffer.from('photo') });
  const index = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zip.writeUInt32LE(0x0badf00d, index);
  await choosePhotos(zip);
  await start.click();
  await expect(page.getByTestId('import-state')).toHaveText('已停止', { timeout: 30_000 });
  const refused = page.getByRole('table', { name: '被拒绝的行' });
  await expect(refused).toContainText('文件');
  await expect(refused).toContainText(
    '无法读取照片 ZIP 压缩包（已损坏或不是 ZIP 文件）；请重新打包后再导入。',
  );
  await expect(refused).not.toContainText(/could not be saved|cannot be read/);
});
