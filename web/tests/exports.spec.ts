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
  const person = await adminApi.createPerson({ name: `Exported ${t}`, idNumber: `EXP-${t}` });
  const { items } = (await adminApi.get('/api/organizations')) as {
    items: { id: string; name: string }[];
  };
  const organization = items.find((o) => o.id === person.organizationId)!.name;

  // A superadmin working in "All organizations": each row says whose the person is.
  await signIn(page, admin, '/people');
  await expect(page.getByRole('combobox', { name: 'Organization' })).toHaveValue(
    'All organizations',
  );
  const people = await exportLines(page);
  expect(people[0]).toMatch(/^organization,name,idNumber,/);
  // (ID numbers are kept in upper case)
  const row = `${organization},Exported ${t},EXP-${t.toUpperCase()},`;
  expect(people.some((line) => line.startsWith(row))).toBe(true);

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
