import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { importJobOut, listOf, peopleList } from '@svc/shared';
import type { Page } from '@playwright/test';
import { expect, test as base, withStack, type Stack } from './fixtures';
import { AuditPage } from './review-pages';
import { ImportPage } from './bulk-pages';
import { signIn } from './data-pages';
import { AdminApi, tag, type Account } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';
import { storedZip } from './support/zip';

interface ImportFixtures {
  imports: {
    stack: Stack;
    api: AdminApi;
    admin: Account;
    /** While this file exists the server's import waits before its next row. */
    holdFile: string;
  };
}

/** A stack of its own whose imports can be held mid-way (SVC_IMPORT_HOLD_FILE). */
const test = base.extend<ImportFixtures>({
  imports: [
    async ({ nginxBin, runDir, playwright }, use) => {
      const dir = mkdtempSync(path.join(runDir, 'import-'));
      const holdFile = path.join(dir, 'hold-imports');
      await withStack(
        nginxBin,
        dir,
        async (stack) => {
          const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
            username: stack.adminUsername,
            password: stack.adminPassword,
          });
          try {
            await use({ stack, api, admin: account, holdFile });
          } finally {
            await api.dispose();
          }
        },
        { SVC_IMPORT_HOLD_FILE: holdFile },
      );
    },
    { timeout: 90_000 },
  ],
  site: async ({ imports }, use) => {
    await use(imports.stack);
  },
});

const ROWS = 1_000;
/** Rows refused by the server's rules: a row with no name, an unknown space, a bad flag. */
const BAD = new Map<number, (id: string) => string>([
  [120, (id) => `,${id},,,`],
  [480, (id) => `Bad Space ${id},${id},,No Such Space,`],
  [903, (id) => `Bad Flag ${id},${id},,,perhaps`],
]);

function peopleCsv(t: string): { csv: Buffer; badIds: string[] } {
  const lines = ['name,idNumber,phone,spaces,enabled'];
  const badIds: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const id = `IMP-${t}-${String(i).padStart(4, '0')}`;
    const bad = BAD.get(i);
    if (bad) badIds.push(id);
    lines.push(bad ? bad(id) : `Imported ${i} ${t},${id},+1 555 ${1000 + i},,true`);
  }
  return { csv: Buffer.from(lines.join('\n'), 'utf8'), badIds };
}

async function flatJpeg(page: Page, colour: string): Promise<Buffer> {
  await page.setContent(`<body style="margin:0;background:${colour}"></body>`);
  return page.screenshot({
    type: 'jpeg',
    quality: 80,
    clip: { x: 0, y: 0, width: 120, height: 160 },
  });
}

test('an import of 1,000 rows with 3 bad ones: held and reloaded, then 100 %, errors listed and downloaded, audited', async ({
  page,
  imports,
}) => {
  test.setTimeout(180_000);
  const t = tag();
  const { csv, badIds } = peopleCsv(t);
  const photos = storedZip({
    [`IMP-${t}-0001.jpg`]: await flatJpeg(page, '#3366cc'),
    [`photos/IMP-${t}-0002.jpg`]: await flatJpeg(page, '#cc6633'),
  });

  // Held before its first row: the page shows it running, before and after a reload.
  writeFileSync(imports.holdFile, '');
  try {
    await signIn(page, imports.admin, '/import');
    const importing = new ImportPage(page);
    await importing.start({ csv, photos });
    await expect(importing.state).toHaveText('Running');
    await expect(importing.counts).toHaveText(/^0 of 1,000 rows \(0 %\)/);
    await expect(importing.progress).toHaveAttribute('aria-valuenow', '0');

    await page.reload();
    await expect(importing.heading).toBeVisible();
    await expect(importing.state).toHaveText('Running');
    await expect(importing.counts).toHaveText(/^0 of 1,000 rows \(0 %\)/);
    await expectAccessible(page);
  } finally {
    rmSync(imports.holdFile, { force: true });
  }
  expect(existsSync(imports.holdFile)).toBe(false);

  // Released: the page follows it to the end without being reloaded.
  const importing = new ImportPage(page);
  await expect(importing.state).toHaveText('Finished', { timeout: 120_000 });
  await expect(importing.progress).toHaveAttribute('aria-valuenow', '100');
  await expect(importing.counts).toHaveText('1,000 of 1,000 rows (100 %): 997 imported, 3 refused');
  await expect(importing.errors).toHaveCount(1 + 3);
  for (const [i, id] of badIds.entries()) {
    await expect(importing.errors.nth(1 + i)).toContainText(id);
  }
  await expect(importing.errors.nth(2)).toContainText('there is no space "No Such Space"');

  const download = page.waitForEvent('download');
  await importing.downloadErrors.click();
  const file = await (await download).path();
  const lines = readFileSync(file, 'utf8')
    .replace(/^\ufeff/, '')
    .trim()
    .split('\r\n');
  expect(lines[0]).toBe('row,idNumber,error,code');
  // Row numbers count the header as line 1.
  expect(lines.slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(
    [...BAD.keys()].map((row, i) => `${row + 1},${badIds[i]}`),
  );
  expect(lines[2]).toContain('spaces: there is no space ""No Such Space""');
  expect(lines[3]).toMatch(/enabled: use true or false.*,import_yes_no$/);

  // What the server holds: 997 people, the photos given, none of the refused rows.
  const people = peopleList.parse(
    await imports.api.get(`/api/people?q=${encodeURIComponent(`IMP-${t}-0001`)}`),
  );
  expect(people.items[0]?.photoSha256).toMatch(/^[0-9a-f]{64}$/);
  const refused = peopleList.parse(await imports.api.get(`/api/people?q=${badIds[1]}`));
  expect(refused.total).toBe(0);
  const jobs = listOf(importJobOut).parse(await imports.api.get('/api/imports'));
  expect(jobs.items[0]).toMatchObject({ total: 1000, succeeded: 997, failed: 3 });

  await expectAccessible(page);
  await expectNothingClippedAt390(page);
  // On a phone the refused rows fit: the reason wraps instead of running off the right edge.
  const box = await page.getByRole('table', { name: 'Refused rows' }).boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);

  // The audit log finds the import.
  const audit = new AuditPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await audit.goto();
  await audit.search({ Action: 'person.import' });
  await expect(audit.rows.first()).toContainText('997 of 1,000 rows imported, 3 refused');
  await expect(audit.rows.first()).toContainText(imports.admin.username);
});

test('the import form refuses a missing CSV with the shared rule, and sends nothing', async ({
  page,
  imports,
}) => {
  await signIn(page, imports.admin, '/import');
  const importing = new ImportPage(page);
  await importing.form.getByRole('button', { name: 'Start import' }).click();
  await expect(importing.form.getByText('Choose the CSV file')).toBeVisible();
  await expect(importing.latest).toHaveCount(0);
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});
