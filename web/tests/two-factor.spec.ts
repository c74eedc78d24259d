import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { HomePage, LoginPage } from './pages';
import { expectAccessible } from './support/checks';
import { totpAt } from './support/totp';

test('an administrator turns on two-factor sign-in and signs in with a code, then a recovery code', async ({
  page,
  adminApi,
  playwright,
}) => {
  // Enrolment and three sign-ins in one flow: longer than one page's test.
  test.slow();
  const account = await adminApi.createOperator(playwright);
  await signIn(page, account, '/people');
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Two-factor sign-in' });

  await dialog.getByLabel('Current password', { exact: true }).fill('not my password at all');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(dialog.getByTestId('two-factor-error')).toBeVisible();
  await dialog.getByLabel('Current password', { exact: true }).fill(account.password);
  await dialog.getByRole('button', { name: 'Continue' }).click();

  await expect(
    dialog.getByRole('img', { name: 'QR code for your authenticator app' }),
  ).toBeVisible();
  await expectAccessible(page);
  const secret = (await dialog.getByTestId('two-factor-secret').textContent()) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  // Once the app has the secret, a stray Esc does not throw it away (outside eyes).
  await page.keyboard.press('Escape');
  await expect(dialog.getByTestId('two-factor-secret')).toHaveText(secret);
  await dialog.getByLabel('Code from the app').fill('000000');
  await dialog.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  await expect(dialog.getByTestId('two-factor-error')).toBeVisible();
  const enabledAt = Date.now();
  // Typed as the app shows it, "123 456"; the old "wrong" goes once the code changes.
  const first = totpAt(secret, enabledAt);
  await dialog.getByLabel('Code from the app').fill(`${first.slice(0, 3)} ${first.slice(3)}`);
  await expect(dialog.getByTestId('two-factor-error')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();

  const codes = dialog.getByTestId('recovery-codes').getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.nth(0).textContent()) ?? '';
  expect(recovery).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  // Shown once: neither Esc nor a click beside the dialog loses them, and they can be copied.
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 5);
  await expect(codes).toHaveCount(10);
  await expect(dialog.getByRole('button', { name: 'Close' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Copy the codes' }).click();
  await expect(dialog.getByRole('button', { name: /Copied|Copy the codes/ })).toBeVisible();
  await dialog.getByRole('button', { name: 'I have saved my recovery codes' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('shell-notice')).toHaveText('Two-factor sign-in is on.');

  // The password alone asks for the code; the code of the next step is accepted (the one that
  // enabled it is spent, and the server allows one step of clock drift).
  await new HomePage(page).signOut();
  const login = new LoginPage(page);
  await login.signIn(account.username, account.password);
  const code = page.getByLabel('Two-factor code');
  await expect(code).toBeVisible();
  // The next step, not a failure (outside eyes: it came in the red "Sign-in failed" box).
  await expect(page.getByTestId('login-step')).toContainText(
    'Enter the code from your authenticator app',
  );
  await expect(login.error).toHaveCount(0);
  await code.fill(totpAt(secret, enabledAt + 30_000));
  await login.submit.click();
  await expect(page.getByTestId('current-username')).toHaveText(account.username);

  // A recovery code signs in once.
  await new HomePage(page).signOut();
  await login.signIn(account.username, account.password);
  await code.fill(recovery);
  await login.submit.click();
  await expect(page.getByTestId('current-username')).toHaveText(account.username);
  await new HomePage(page).signOut();
  await login.signIn(account.username, account.password);
  await code.fill(recovery);
  await login.submit.click();
  await expect(login.error).toContainText('wrong or was used already');
});
