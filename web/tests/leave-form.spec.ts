import { expect, test } from './data-fixtures';
import { Navigation, PersonFormPage, signIn } from './data-pages';
import { question } from './safety-pages';
import { expectAccessible } from './support/checks';

test('leaving a half-filled form asks first: menu, Back and reload', async ({ page, admin }) => {
  test.setTimeout(60_000);
  await signIn(page, admin, '/people');
  const nav = new Navigation(page);
  await page.goto('/people/new');
  const form = new PersonFormPage(page);
  // Untouched: leaving asks nothing.
  await nav.link('People').click();
  await expect(page).toHaveURL(/\/people$/);

  // Opened from the list (one document), so Back below is the site's own navigation.
  await page.getByRole('link', { name: 'New person' }).click();
  await form.name.fill('Half typed');
  await nav.link('People').click();
  const ask = question(page, 'Leave without saving?');
  await expect(ask).toContainText('will be lost');
  await expectAccessible(page);
  await ask.getByRole('button', { name: 'Stay on the form' }).click();
  await expect(page).toHaveURL(/\/people\/new$/);
  await expect(form.name).toHaveValue('Half typed');

  // Back asks too; Leave goes.
  await page.goBack();
  await expect(ask).toBeVisible();
  await ask.getByRole('button', { name: 'Leave without saving' }).click();
  await expect(page).toHaveURL(/\/people$/);

  // A reload asks through the browser.
  await page.goto('/people/new');
  await form.name.fill('Typed again');
  const asked: string[] = [];
  page.on('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
});

test('a form opened by its address in a fresh tab: Back asks in the page and stays', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/people');
  // A tab of its own: the form is the first page of its history, so Back would leave the site.
  const tab = await page.context().newPage();
  await tab.goto('/people/new');
  const form = new PersonFormPage(tab);
  await form.name.fill('Typed in a fresh tab');
  await tab.goBack();
  const ask = question(tab, 'Leave without saving?');
  await expect(ask).toBeVisible();
  await ask.getByRole('button', { name: 'Stay on the form' }).click();
  await expect(tab).toHaveURL(/\/people\/new$/);
  await expect(form.name).toHaveValue('Typed in a fresh tab');
});
