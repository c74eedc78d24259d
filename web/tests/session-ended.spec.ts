import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { PersonFormPage, signIn } from './data-pages';
import { HomePage, LoginPage } from './pages';
import type { Account } from './support/admin-api';
import { expectAccessible } from './support/checks';

/** The dialog that asks to sign in again once the server no longer knows the session. */
function signInAgain(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
  return {
    dialog,
    username: dialog.getByLabel('Username', { exact: true }),
    password: dialog.getByLabel('Password', { exact: true }),
    submit: dialog.getByRole('button', { name: 'Sign in' }),
    signOut: dialog.getByRole('button', { name: /^Sign out instead/ }),
  };
}

/**
 * Ends the session for the server (as when it expires: the browser's cookie is dropped), then
 * saves, unless a page's own refresh met the 401 first and the dialog already covers the
 * form (then that request asked).
 */
async function saveAfterEnd(page: Page, form: PersonFormPage): Promise<void> {
  await page.context().clearCookies();
  const asked = signInAgain(page).dialog;
  await expect(async () => {
    if (await asked.isVisible()) return;
    await form.create.click({ timeout: 1_000 });
  }).toPass();
  await expect(asked).toBeVisible();
}

/** A new person typed in (`name`, and an ID number of `id`) and saved after the session ended. */
async function typedThenEnded(page: Page, admin: Account, name: string, id: string) {
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  await form.name.fill(name);
  await form.idNumber.fill(`${id}-${Date.now()}`);
  await saveAfterEnd(page, form);
  return form;
}

test('a session that ends mid-form asks to sign in again and keeps what was typed', async ({
  page,
  admin,
}) => {
  const name = `Kept across sign-in ${Date.now()}`;
  const form = await typedThenEnded(page, admin, name, 'KEPT');

  const again = signInAgain(page);
  await expect(again.dialog).toContainText('What you typed on this page is kept');
  await expect(again.username).toHaveValue(admin.username);
  await expect(again.password).toBeFocused();
  await expectAccessible(page);
  // Not the sign-in page: the form is still there, with what was typed.
  await expect(page).toHaveURL(/\/people\/new$/);
  await expect(form.name).toHaveValue(name);
  await page.keyboard.press('Escape');
  await expect(again.dialog).toBeVisible();

  await again.password.fill(admin.password);
  await again.submit.click();
  await expect(again.dialog).toHaveCount(0);
  await expect(form.name).toHaveValue(name);
  await form.create.click();
  await expect(page).toHaveURL(/\/people\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name, exact: true })).toBeVisible();
});

test('signing in as someone else after a session ended starts the site over', async ({
  page,
  admin,
  operator,
}) => {
  const typed = `Not for the operator ${Date.now()}`;
  await typedThenEnded(page, admin, typed, 'GONE');

  const again = signInAgain(page);
  await again.username.fill(operator.username);
  await again.password.fill(operator.password);
  await again.submit.click();
  await expect(again.dialog).toHaveCount(0);
  await expect(page.getByTestId('current-username')).toHaveText(operator.username);
  const anyInputHolds = (value: string) =>
    page.evaluate(
      (text) => [...document.querySelectorAll('input')].some((input) => input.value === text),
      value,
    );
  await expect.poll(() => anyInputHolds(typed)).toBe(false);
});

test('"Sign out instead" goes to the sign-in page, whose notice follows the language', async ({
  page,
  admin,
}) => {
  await typedThenEnded(page, admin, `Given up ${Date.now()}`, 'UP');
  await signInAgain(page).signOut.click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByTestId('login-notice')).toHaveText('You are signed out.');
  // Why the sign-in page is shown reads in the language chosen on it.
  await page.getByRole('button', { name: '简体中文' }).click();
  await expect(page.getByTestId('login-notice')).toHaveText('您已退出登录。');
});

test('another tab signing out, or in as someone else, covers this tab at once', async ({
  page,
  admin,
  operator,
}) => {
  // Outside eyes: a form left open in one tab was saved as the account another tab signed in.
  await signIn(page, admin, '/people/new');
  const form = new PersonFormPage(page);
  const name = `Two tabs ${Date.now()}`;
  await form.name.fill(name);
  const other = await page.context().newPage();
  await other.goto('/');
  await expect(other.getByTestId('current-username')).toHaveText(admin.username);

  // Signed out there: asked here, with no request of this tab's needed.
  await new HomePage(other).signOut();
  const again = signInAgain(page);
  await expect(again.dialog).toBeVisible();
  // Someone else signs in there: this tab still asks, its form kept and not theirs to save.
  await new LoginPage(other).signIn(operator.username, operator.password);
  await expect(other.getByTestId('current-username')).toHaveText(operator.username);
  await expect(again.dialog).toBeVisible();
  await expect(form.name).toHaveValue(name);

  // Signed in here again as admin: the form carries on; the other tab, no longer the
  // operator's, asks in turn.
  await again.password.fill(admin.password);
  await again.submit.click();
  await expect(again.dialog).toHaveCount(0);
  await expect(form.name).toHaveValue(name);
  await expect(signInAgain(other).dialog).toBeVisible();
  await other.close();
});

test('after signing in again the form shows no "not saved" of the ended session', async ({
  page,
  admin,
}) => {
  const form = await typedThenEnded(page, admin, `No banner ${Date.now()}`, 'NB');
  const again = signInAgain(page);
  await again.password.fill(admin.password);
  await again.submit.click();
  await expect(again.dialog).toHaveCount(0);
  await expect(form.error).toHaveCount(0);
});
