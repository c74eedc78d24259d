/**
 * A validity date outside 1970-01-01 … 9999-12-31 is refused with a message saying the range,
 * in the form as by the API (the shared schema). A year 0001 was once saved as 1901 unsaid.
 * A date and time typed in part is refused too, never saved as "no date".
 */
import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { PersonFormPage, signIn } from './data-pages';
import { tag, type Account, type AdminApi } from './support/admin-api';

/** A new person's form with a name and an ID number of this run; `count` finds them saved. */
async function newPersonForm(page: Page, admin: Account, adminApi: AdminApi, who: string) {
  const name = `${who} ${tag()}`;
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(name);
  await form.idNumber.fill(name.replace(/\W/g, '').toUpperCase());
  const count = async () =>
    ((await adminApi.get(`/api/people?q=${encodeURIComponent(name)}`)) as { total: number }).total;
  return { form, count };
}

test('a Valid from of 0001-01-01 is refused with the allowed range, not saved as 1901', async ({
  page,
  admin,
  adminApi,
}) => {
  const { form, count } = await newPersonForm(page, admin, adminApi, 'Ancient');
  const from = form.form.getByLabel('Valid from');
  await from.fill('0001-01-01T00:00');
  await form.create.click();
  await expect.poll(() => form.fieldError(from)).toBe('Use a date from 1970-01-01 to 9999-12-31.');
  await expect(page).toHaveURL(/\/people\/new$/);
  expect(await count()).toBe(0);

  await from.fill('2026-01-01T08:00');
  await expect.poll(() => form.fieldError(from)).toBe('');
});

test('a Valid until typed in part is refused by name, never saved as "always", new or edited', async ({
  page,
  admin,
  adminApi,
}) => {
  test.slow();
  const { form, count } = await newPersonForm(page, admin, adminApi, 'Partial');
  const until = form.form.getByLabel('Valid until');
  // The date only (month, day, year), no time: the box's value is empty, its input bad.
  await until.focus();
  await page.keyboard.type('12312026');
  await form.create.click();
  const incomplete = 'Part of this date and time is missing: finish it, or clear it.';
  await expect.poll(() => form.fieldError(until)).toBe(incomplete);
  await expect(page).toHaveURL(/\/people\/new$/);
  expect(await count()).toBe(0);

  // Whole, it saves; then one part of it deleted on the edit page is refused the same way.
  await until.fill('2026-12-31T23:59');
  // Two clicks before the page draws again (a double click on a busy machine): one person.
  await form.create.evaluate((button) => {
    const b = button as unknown as { click(): void };
    b.click();
    b.click();
  });
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}$/);
  expect(await count()).toBe(1);
  const id = page.url().split('/').pop()!;
  const saved = (await adminApi.get(`/api/people/${id}`)) as { validUntil: string | null };
  expect(saved.validUntil).not.toBeNull();
  await page.goto(`/people/${id}/edit`);
  await expect(until).toHaveValue('2026-12-31T23:59');
  await until.focus();
  await page.keyboard.press('Backspace');
  await form.save.click();
  await expect.poll(() => form.fieldError(until)).toBe(incomplete);
  const after = (await adminApi.get(`/api/people/${id}`)) as { validUntil: string | null };
  expect(after.validUntil).toBe(saved.validUntil);
});
