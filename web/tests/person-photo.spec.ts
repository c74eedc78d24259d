import sharp from 'sharp';
import { expect, test } from './data-fixtures';
import { PersonFormPage, signIn } from './data-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

/** A plain JPEG the server takes (the shared stacks run without the face check). */
const aPhoto = () =>
  sharp({
    create: { width: 320, height: 400, channels: 3, background: { r: 90, g: 120, b: 150 } },
  })
    .jpeg()
    .toBuffer();

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

  // A photo the server refuses: the person is created, and the form becomes their edit form,
  // the photo still chosen with why, so it can be replaced or sent again.
  await form.photo.setInputFiles({
    name: 'broken.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from('not really a jpeg'),
  });
  await form.create.click();
  await expect(form.errorTitle).toHaveText('Saved without a photo');
  await expect(form.error).toContainText('The person was created, but the photo was not:');
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}\/edit$/);
  const id = /\/people\/([0-9a-f-]{36})\/edit$/.exec(page.url())![1]!;
  await expect(page.getByRole('heading', { name: `Edit Photo ${t}`, level: 1 })).toBeVisible();
  await expect(form.chosenPhoto).toContainText('broken.jpg');
  // Why, beside the photo too.
  await expect(form.chosenPhoto).toHaveAccessibleDescription(/The file is not an image/);
  await expect(form.create).toHaveCount(0);
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
  await page.screenshot({ path: test.info().outputPath('saved-without-photo-390.png') });

  // Saved again as it is: the same person, not a second one.
  await form.save.click();
  await expect(form.error).toContainText('The person was saved, but the photo was not:');
  await expect(form.chosenPhoto).toContainText('broken.jpg');
  const people = async () =>
    ((await adminApi.get(`/api/people?q=${idNumber}`)) as { items: { id: string }[] }).items;
  expect((await people()).map((p) => p.id)).toEqual([id]);

  // Another photo chosen: the same person gets it.
  await form.photo.setInputFiles({
    name: 'face.jpg',
    mimeType: 'image/jpeg',
    buffer: await aPhoto(),
  });
  await form.save.click();
  await expect(page).toHaveURL(new RegExp(`/people/${id}$`));
  await expect(page.getByRole('heading', { name: `Photo ${t}`, level: 1 })).toBeVisible();
  expect((await people()).map((p) => p.id)).toEqual([id]);
});

test('a new person whose photo was refused: a reload shows their edit form, never a second create', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(`Reload ${t}`);
  await form.idNumber.fill(`RL${t}`);
  await form.photo.setInputFiles({
    name: 'broken.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from('not really a jpeg'),
  });
  await form.create.click();
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}\/edit$/);
  await expect(form.chosenPhoto).toContainText('broken.jpg');
  // A chosen file cannot outlive a reload: the browser asks first, then the plain edit form.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.reload();
  await expect(page.getByRole('heading', { name: `Edit Reload ${t}`, level: 1 })).toBeVisible();
  await expect(form.name).toHaveValue(`Reload ${t}`);
  await expect(form.chosenPhoto).not.toContainText('broken.jpg');
  await expect(form.error).toHaveCount(0);
  await form.save.click();
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}$/);
  const found = (await adminApi.get(`/api/people?q=RL${t}`)) as { total: number };
  expect(found.total).toBe(1);
});

test('while the photo is sent and face-checked, the form says so', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const person = await adminApi.createPerson({ name: `Checked ${t}`, idNumber: `CK${t}` });
  const photo = await aPhoto();
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
