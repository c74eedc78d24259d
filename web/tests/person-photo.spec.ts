import sharp from 'sharp';
import { expect, test } from './data-fixtures';
import { PersonFormPage, signIn } from './data-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('create person with a photo is one outcome: checked in the browser, or saved without a photo', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  const idNumber = `PH${t}`;
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(`Photo ${t}`);
  await form.idNumber.fill(idNumber);

  // Over 5 MB: said at once, in the browser, and nothing is created.
  await form.photo.setInputFiles({
    name: 'huge.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.alloc(5 * 1024 * 1024 + 1, 1),
  });
  await expect(form.form.getByText('The photo is larger than 5 MB')).toBeVisible();
  await form.create.click();
  await expect(form.error).toContainText('Nothing was saved');
  // Not a photo at all: the same.
  await form.photo.setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('hi'),
  });
  await expect(form.form.getByText('notes.txt is not a JPEG or PNG photo.')).toBeVisible();
  await form.create.click();
  await expect(form.error).toContainText('Nothing was saved');
  const none = (await adminApi.get(`/api/people?q=${idNumber}`)) as { total: number };
  expect(none.total).toBe(0);
  await expectAccessible(page);

  // A photo the server refuses: the person exists, so their page says it was saved without one.
  await form.photo.setInputFiles({
    name: 'broken.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from('not really a jpeg'),
  });
  await form.create.click();
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: `Photo ${t}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId('person-note')).toContainText('Saved without a photo:');
  const one = (await adminApi.get(`/api/people?q=${idNumber}`)) as { total: number };
  expect(one.total).toBe(1);
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
  await page.screenshot({ path: test.info().outputPath('saved-without-photo-390.png') });
});

test('while the photo is sent and face-checked, the form says so', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const person = await adminApi.createPerson({ name: `Checked ${t}`, idNumber: `CK${t}` });
  const photo = await sharp({
    create: { width: 320, height: 400, channels: 3, background: { r: 90, g: 120, b: 150 } },
  })
    .jpeg()
    .toBuffer();
  // The upload is held at the browser until the status has been seen: no timing involved.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/people/*/photo', async (route) => {
    await held;
    await route.continue();
  });

  await signIn(page, admin, `/people/${person.id}/edit`);
  const form = new PersonFormPage(page);
  await expect(form.status).toBeEmpty();
  await form.photo.setInputFiles({ name: 'face.jpg', mimeType: 'image/jpeg', buffer: photo });
  await form.save.click();
  await expect(form.status).toHaveText('Checking the photo…');
  await expectAccessible(page);
  release();
  await expect(page).toHaveURL(new RegExp(`/people/${person.id}$`));
  await expect(page.getByRole('heading', { name: `Checked ${t}`, level: 1 })).toBeVisible();
});
