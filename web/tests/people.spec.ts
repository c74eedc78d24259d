import { formatMessage, peopleList, spaceOut } from '@svc/shared';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';
import { expect, test } from './data-fixtures';
import { Navigation, PeopleListPage, PersonDetailPage, PersonFormPage, signIn } from './data-pages';
import { tag } from './support/admin-api';

const two = (n: number) => String(n).padStart(2, '0');

test('people: server-side search by name and ID number, paging, name order, space filter', async ({
  page,
  adminApi,
  admin,
}) => {
  // Enough people for pages of them, made through the API first.
  test.setTimeout(60_000);
  const t = tag();
  const prefix = `Pg${t}`;
  const space = await adminApi.createSpace(`Hall ${t}`);
  // 30 people: more than one page of 25; three of them have access to the hall.
  for (let n = 1; n <= 30; n++) {
    await adminApi.createPerson({
      name: `${prefix} Person ${two(n)}`,
      idNumber: `ID${t}-${two(n)}`,
      spaceIds: n <= 3 ? [space.id] : [],
    });
  }

  await signIn(page, admin);
  await new Navigation(page).link('People').click();
  const people = new PeopleListPage(page);
  await expect(people.heading).toBeVisible();
  await expect(page).toHaveURL(/\/people$/);

  const searched = page.waitForResponse(
    (r) => r.url().includes('/api/people?') && r.url().includes(`q=${prefix}`),
  );
  await people.search.fill(prefix);
  expect((await searched).ok()).toBe(true);
  await expect(people.total).toHaveText('30 people');
  await expect(people.rows).toHaveCount(25);
  expect((await people.names())[0]).toBe(`${prefix} Person 01`);
  expect((await people.names())[24]).toBe(`${prefix} Person 25`);

  await people.nextPage.click();
  await expect(people.rows).toHaveCount(5);
  expect(await people.names()).toEqual([26, 27, 28, 29, 30].map((n) => `${prefix} Person ${n}`));
  await expect(page).toHaveURL(/page=2/);

  // Name order reversed starts again from page 1.
  await people.nameSort.click();
  await expect(people.rows).toHaveCount(25);
  await expect(people.rows.first()).toContainText(`${prefix} Person 30`);

  // An ID-number prefix, in lower case: ID numbers are canonical upper case.
  await people.search.fill(`id${t.toLowerCase()}-1`);
  await expect(people.total).toHaveText('10 people');
  await expect(people.rows.first()).toContainText(`${prefix} Person 19`);

  // The space filter, combined with the search.
  await people.search.fill(prefix);
  await expect(people.total).toHaveText('30 people');
  await people.chooseSpace(space.name);
  await expect(people.total).toHaveText('3 people');
  await expect(people.rows).toHaveCount(3);
  await expect(people.rows.first()).toContainText(`Hall ${t}`);

  // A deep link with the filters shows the same page after a reload.
  await page.reload();
  await expect(people.total).toHaveText('3 people');
  await expect(people.search).toHaveValue(prefix);

  await people.search.fill(`Nobody${t}`);
  await expect(people.total).toHaveText('0 people');
  await expect(page.getByTestId('people-empty')).toBeVisible();
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('people: a count the server stopped at 10,000 is shown as 10,000+', async ({
  page,
  adminApi,
  admin,
}) => {
  const t = tag();
  await adminApi.createPerson({ name: `Cap${t} Person`, idNumber: `CAP${t}` });
  // The real answer, with the count the server gives beyond 10,000 people (seeding that many
  // is a benchmark's job, not a page test's).
  await page.route(/\/api\/people\?/, async (route) => {
    const response = await route.fetch();
    const body = peopleList.parse(await response.json());
    await route.fulfill({ response, json: { ...body, total: 10_000, totalCapped: true } });
  });
  await signIn(page, admin, '/people');
  const people = new PeopleListPage(page);
  await expect(people.total).toHaveText('10,000+ people');
  await expect(page.getByRole('button', { name: '400' })).toBeVisible();
});

test('person: create with errors from the server, photo, then edit', async ({
  page,
  adminApi,
  admin,
}) => {
  // Create with refusals, a photo, and an edit with its axe checks: over 30 s on a busy machine.
  test.slow();
  const t = tag();
  const space = await adminApi.createSpace(`Wing ${t}`);
  const room = spaceOut.parse(
    await adminApi.post('/api/spaces', { name: `Room ${t}`, parentId: space.id }),
  );
  const taken = await adminApi.createPerson({ name: `Taken ${t}`, idNumber: `TK${t}` });

  await signIn(page, admin, '/people');
  await new PeopleListPage(page).newPerson.click();
  const form = new PersonFormPage(page);
  await expect(page.getByRole('heading', { name: 'New person' })).toBeVisible();

  // An ID number the shared schema refuses: the message shows as typed and clears once fixed.
  await form.name.fill(`Newcomer ${t}`);
  await form.idNumber.fill(`bad*${t}`);
  await expect(form.idNumber).toHaveAttribute('aria-invalid', 'true');
  await expect.poll(() => form.fieldError(form.idNumber)).not.toBe('');
  await form.name.fill('');
  await expect(form.name).toHaveAttribute('aria-invalid', 'true');
  await form.name.fill(`Newcomer ${t}`);
  await expect(form.name).not.toHaveAttribute('aria-invalid', 'true');

  // An ID number another person holds: 409 with the server's words.
  await form.idNumber.fill(taken.idNumber.toLowerCase());
  await expect(form.idNumber).not.toHaveAttribute('aria-invalid', 'true');
  await form.create.click();
  await expect(form.error).toContainText(
    'Another person in this organization already has this ID number.',
  );
  // The next submit clears it, even one the form's own check refuses (an empty name).
  await form.name.fill('');
  await form.create.click();
  await expect(form.name).toHaveAttribute('aria-invalid', 'true');
  await expect(form.error).toHaveCount(0);
  await form.name.fill(`Newcomer ${t}`);

  await form.idNumber.fill(`NC-${t}`);
  // The picker shows the tree: a space inside another is listed under it, by its path.
  await form.spaces.click();
  const options = page.getByRole('option');
  const names = await options.allTextContents();
  const parentAt = names.indexOf(space.name);
  expect(parentAt).toBeGreaterThanOrEqual(0);
  expect(names[parentAt + 1]).toBe(`${space.name} › ${room.name}`);
  await page.keyboard.press('Escape');
  await form.chooseSpace(space.name);
  const png = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } });
  await form.photo.setInputFiles({ name: 'face.png', mimeType: 'image/png', buffer: png });
  // Previewed before it is uploaded.
  const preview = page.getByRole('img', { name: 'Photo preview' });
  await expect
    .poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBeGreaterThan(0);
  await form.create.click();

  const person = new PersonDetailPage(page);
  await expect(person.heading(`Newcomer ${t}`)).toBeVisible();
  await expect(person.idNumber).toHaveText(`NC-${t.toUpperCase()}`);
  await expect(person.spaces).toHaveText(space.name);
  await expect(person.enabled).toHaveText('Enabled');
  await expect(person.photo).toBeVisible();
  await expect
    .poll(() => person.photo.evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBeGreaterThan(0);

  await person.edit.click();
  await expect(form.name).toHaveValue(`Newcomer ${t}`);
  await form.name.fill(`Renamed ${t}`);
  await form.enabled.uncheck();
  await form.save.click();
  await expect(person.heading(`Renamed ${t}`)).toBeVisible();
  await expect(person.enabled).toHaveText('Disabled');
  await expect(person.spaces).toHaveText(space.name);
  await expectAccessible(page);
  await person.edit.click();
  await expect(form.name).toHaveValue(`Renamed ${t}`);
  await expectAccessible(page);
});

test('an operator reads people but sees no edit controls', async ({ page, adminApi, operator }) => {
  const t = tag();
  const someone = await adminApi.createPerson({ name: `Read${t} Only`, idNumber: `RO${t}` });

  await signIn(page, operator, '/people');
  const people = new PeopleListPage(page);
  await people.search.fill(`Read${t}`);
  await expect(people.rows).toHaveCount(1);
  await expect(people.newPerson).toHaveCount(0);

  await people.rows
    .first()
    .getByRole('link', { name: `Read${t} Only` })
    .click();
  const person = new PersonDetailPage(page);
  await expect(person.heading(`Read${t} Only`)).toBeVisible();
  await expect(person.edit).toHaveCount(0);
  await expectAccessible(page);

  // A typed address does not bring the form either.
  await page.goto(`/people/${someone.id}/edit`);
  await expect(page.getByTestId('not-allowed')).toBeVisible();
  await expect(page.getByRole('form', { name: 'Person' })).toHaveCount(0);
});

test('person: a photo too small for a device of the person is named on the person page', async ({
  page,
  adminApi,
  admin,
}) => {
  const t = tag();
  const space = spaceOut.parse(await adminApi.post('/api/spaces', { name: `Tower ${t}` }));
  await adminApi.post('/api/devices', {
    sn: `TALL-${t}`.toUpperCase(),
    name: `Tall door ${t}`,
    baseUrl: 'http://127.0.0.1:9',
    spaceId: space.id,
    minPhotoSide: 200,
  });
  const person = await adminApi.createPerson({
    name: `Small${t} Photo`,
    idNumber: `SP${t}`,
    spaceIds: [space.id],
  });
  await signIn(page, admin, `/people/${person.id}`);
  const detail = new PersonDetailPage(page);
  await expect(detail.heading(`Small${t} Photo`)).toBeVisible();
  // No photo yet: nothing to warn about.
  await expect(detail.photoFitWarning).toHaveCount(0);

  const png = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } });
  await adminApi.putPhoto(person.id, png);
  await page.reload();
  await expect(detail.photo).toBeVisible();
  await expect(detail.photoFitWarning).toContainText(`Tall door ${t}`);
  await expect(detail.photoFitWarning).toContainText('64×64 pixels; the device needs at least 200');
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('person: a pasted text longer than allowed is kept whole and the field says the limit', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await expect(page.getByRole('heading', { name: 'New person' })).toBeVisible();

  const longName = `Pasted ${t} `.padEnd(129, 'x');
  const longId = `PASTE${t}`.toUpperCase().padEnd(65, '7');
  await form.paste(form.name, longName);
  await form.paste(form.idNumber, longId);
  // Nothing is cut without a word: the whole text stays, and the field says the limit.
  await expect(form.name).toHaveValue(longName);
  await expect(form.idNumber).toHaveValue(longId);
  await expect(form.name).toHaveAttribute('aria-invalid', 'true');
  await expect.poll(() => form.fieldError(form.name)).toBe(formatMessage('too_long', { max: 128 }));
  await expect
    .poll(() => form.fieldError(form.idNumber))
    .toBe(formatMessage('too_long', { max: 64 }));
  await expectAccessible(page);

  // Refused in the browser: nothing reaches the service.
  await form.create.click();
  await expect(page.getByRole('heading', { name: 'New person' })).toBeVisible();
  const found = peopleList.parse(await adminApi.get(`/api/people?q=PASTE${t}`));
  expect(found.total).toBe(0);

  // Shortened by the person: accepted.
  await form.name.fill(longName.slice(0, 128));
  await expect(form.name).not.toHaveAttribute('aria-invalid', 'true');
});
