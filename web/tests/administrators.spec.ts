import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { ChangePasswordPage, LoginPage } from './pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('administrators: create with a role (one-time password shown once), disable, reset', async ({
  page,
  admin,
  browser,
}) => {
  // Two more dialogs than before (the question before, the secret kept until stored).
  test.setTimeout(60_000);
  const username = `clerk-${tag()}`;
  await signIn(page, admin, '/administrators');
  await expect(page.getByRole('heading', { name: 'Administrators', level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'New administrator' }).click();
  const dialog = page.getByRole('dialog', { name: 'New administrator' });
  const name = dialog.getByRole('textbox', { name: 'Username' });
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await name.fill(username);
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await dialog.getByRole('combobox', { name: 'Role' }).click();
  await page.getByRole('option', { name: 'Administrator', exact: true }).click();
  await dialog.getByRole('button', { name: 'Create' }).click();

  const otp = page.getByTestId('one-time-password');
  await expect(otp).toBeVisible();
  const password = (await otp.textContent()) ?? '';
  expect(password.length).toBeGreaterThanOrEqual(12);
  await expectAccessible(page);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await expect(otp).toHaveCount(0);
  const row = page.locator(`[data-testid="administrator-row"][data-username="${username}"]`);
  await expect(row).toContainText('Administrator');
  await expect(row.getByTestId('administrator-state')).toContainText('Must change password');

  // The one-time password works (and asks for a change) in a browser of its own.
  const other = await browser.newPage({ baseURL: page.url() });
  const login = new LoginPage(other);
  await login.goto('/');
  await login.signIn(username, password);
  await expect(new ChangePasswordPage(other).heading).toBeVisible();
  await other.close();

  await page.getByRole('button', { name: `Actions for ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Disable (ends sessions)' }).click();
  const ask = page.getByRole('dialog', { name: `Disable ${username}?` });
  await expect(ask).toContainText('signed out everywhere');
  await ask.getByRole('button', { name: 'Disable' }).click();
  await expect(row.getByTestId('administrator-state')).toContainText('Disabled');
  await page.getByRole('button', { name: `Actions for ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Enable' }).click();
  await expect(row.getByTestId('administrator-state')).toContainText('Active');

  await page.getByRole('button', { name: `Actions for ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Reset password' }).click();
  // Asked first, naming the account and the consequence; Cancel leaves the password as it was.
  const resetAsk = page.getByRole('dialog', { name: `Reset the password of ${username}?` });
  await expect(resetAsk).toContainText(`The current password of ${username} stops working`);
  await expect(otp).toHaveCount(0);
  await resetAsk.getByRole('button', { name: 'Cancel' }).click();
  await expect(resetAsk).toHaveCount(0);
  await expect(otp).toHaveCount(0);
  await page.getByRole('button', { name: `Actions for ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Reset password' }).click();
  await resetAsk.getByRole('button', { name: 'Reset password' }).click();
  await expect(otp).toBeVisible();
  expect(await otp.textContent()).not.toBe(password);
  await page.getByRole('button', { name: 'I have stored it' }).click();

  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('an operator has no Administrators entry and the address answers Not allowed', async ({
  page,
  operator,
}) => {
  await signIn(page, operator, '/administrators');
  await expect(page.getByTestId('not-allowed')).toBeVisible();
  await expect(page.getByRole('button', { name: 'New administrator' })).toHaveCount(0);
  await expect(
    page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Administrators' }),
  ).toHaveCount(0);
  await expectAccessible(page);
});
