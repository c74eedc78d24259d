import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { tag } from './support/admin-api';

/** Clicks the page's Export CSV link and answers the downloaded file's lines. */
async function exportLines(page: Page): Promise<string[]> {
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const file = await (await download).path();
  return readFileSync(file, 'utf8')
    .replace(/^\ufeff/, '')
    .trim()
    .split('\r\n');
}

test('People and Events export CSV from their pages; operators see no export', async ({
  page,
  admin,
  adminApi,
  operator,
  browser,
  site,
}) => {
  const t = tag();
  await adminApi.createPerson({ name: `Exported ${t}`, idNumber: `EXP-${t}` });

  await signIn(page, admin, '/people');
  const people = await exportLines(page);
  expect(people[0]).toMatch(/^name,idNumber,/);
  // (ID numbers are kept in upper case)
  expect(people.some((line) => line.startsWith(`Exported ${t},EXP-${t.toUpperCase()},`))).toBe(
    true,
  );

  await page.goto('/events');
  await expect(page.getByRole('heading', { name: 'Events', level: 1 })).toBeVisible();
  const events = await exportLines(page);
  expect(events[0]).toMatch(/^id,eventId,time,/);

  const other = await browser.newPage({ baseURL: site.webURL });
  await signIn(other, operator, '/people');
  await expect(other.getByRole('heading', { name: 'People', level: 1 })).toBeVisible();
  await expect(other.getByRole('link', { name: 'Export CSV' })).toHaveCount(0);
  await other.close();
});
