/**
 * A validity date outside 1970-01-01 … 9999-12-31 is refused with a message saying the range,
 * in the form as by the API (the shared schema). A year 0001 was once saved as 1901 unsaid.
 */
import { expect, test } from './data-fixtures';
import { PersonFormPage, signIn } from './data-pages';
import { tag } from './support/admin-api';

test('a Valid from of 0001-01-01 is refused with the allowed range, not saved as 1901', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(60_000);
  const t = tag();
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(`Ancient ${t}`);
  await form.idNumber.fill(`VR${t}`.toUpperCase());
  const from = form.form.getByLabel('Valid from');
  await from.fill('0001-01-01T00:00');
  await form.create.click();
  await expect.poll(() => form.fieldError(from)).toBe('Use a date from 1970-01-01 to 9999-12-31.');
  await expect(page).toHaveURL(/\/people\/new$/);
  const found = (await adminApi.get(`/api/people?q=${encodeURIComponent(`Ancient ${t}`)}`)) as {
    total: number;
  };
  expect(found.total).toBe(0);

  await from.fill('2026-01-01T08:00');
  await expect.poll(() => form.fieldError(from)).toBe('');
});
