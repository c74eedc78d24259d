import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { HomePage, LoginPage } from './pages';
import { generatePassword } from './support/stack';
import { expectAccessible } from './support/checks';

test('any administrator changes their own password from the account menu', async ({
  page,
  adminApi,
  playwright,
}) => {
  // An operator of its own: the lowest role may change its own password too.
  const account = await adminApi.createOperator(playwright);
  await signIn(page, account, '/people');
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Change password' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change your password' });
  await expect(dialog).toBeVisible();
  await expectAccessible(page);

  const next = generatePassword(24);
  await dialog.getByLabel('Current password', { exact: true }).fill('not my password at all');
  await dialog.getByLabel('New password', { exact: true }).fill(next);
  const confirmation = dialog.getByLabel('Confirm new password', { exact: true });
  await confirmation.fill(`${next}x`);
  await expect(dialog.getByText('The two new passwords are not the same.')).toBeVisible();
  await confirmation.fill(next);
  await expect(dialog.getByText('The two new passwords are not the same.')).toHaveCount(0);

  // The server refuses a wrong current password; nothing changes.
  await dialog.getByRole('button', { name: 'Change password' }).click();
  await expect(dialog.getByTestId('own-password-error')).toBeVisible();

  await dialog.getByLabel('Current password', { exact: true }).fill(account.password);
  await dialog.getByRole('button', { name: 'Change password' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('shell-notice')).toHaveText('Your password was changed.');
  // Said once, where it happened: another page does not carry it along (outside eyes).
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Spaces' })
    .click();
  await expect(page.getByRole('heading', { name: 'Spaces', level: 1 })).toBeVisible();
  await expect(page.getByTestId('shell-notice')).toHaveCount(0);

  await new HomePage(page).signOut();
  const login = new LoginPage(page);
  await expect(login.heading).toBeVisible();
  await login.signIn(account.username, account.password);
  await expect(login.error).toBeVisible();
  await login.signIn(account.username, next);
  await expect(page.getByTestId('current-username')).toHaveText(account.username);
});
