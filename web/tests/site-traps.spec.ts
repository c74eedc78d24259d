/**
 * Issue 30, the outside tester's walk: a secret shown once asks before the page is left, a
 * dirty dialog asks before it is thrown away, and the Administrators list offers what each row
 * allows (no Disable on one's own row; editing display name, role and organization).
 */
import type { Locator } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { AdministratorsListPage, discardQuestion } from './admin-pages';
import { DevicesPage } from './site-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('while a one-time password is shown, Back and a reload ask first', async ({ page, admin }) => {
  test.setTimeout(120_000);
  await signIn(page, admin, '/');
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Administrators' })
    .click();
  const admins = new AdministratorsListPage(page);
  await expect(admins.heading).toBeVisible();
  await admins.createAccount(`otp-${tag()}`, 'Operator (reads only)');
  const secret = page.getByTestId('one-time-password');
  await expect(secret).toBeVisible();

  // Back: the site asks in the page; staying keeps the secret.
  await page.goBack();
  const ask = page.getByRole('dialog', { name: 'Leave before storing it?' });
  await expect(ask).toContainText('cannot be shown again');
  await page.screenshot({ path: test.info().outputPath('leave-secret-1280.png') });
  await ask.getByRole('button', { name: 'Stay and store it' }).click();
  await expect(ask).toHaveCount(0);
  await expect(page).toHaveURL(/\/administrators$/);
  await expect(secret).toBeVisible();

  // A reload (or a closed tab) asks through the browser.
  const asked: string[] = [];
  page.on('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
  await expect(secret).toHaveCount(0);
  await expect(admins.heading).toBeVisible();

  // Once stored, nothing is asked.
  await admins.createAccount(`otp-${tag()}`, 'Operator (reads only)');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.reload();
  expect(asked).toEqual(['beforeunload']);
});

test('while a rotated device key is shown, Back asks first, in the page or the browser', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const name = `Key Gate ${t}`;
  await adminApi.createDevice(name);
  await signIn(page, admin, '/');
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Devices' })
    .click();
  const devices = new DevicesPage(page);
  await expect(devices.heading).toBeVisible();
  await devices.action(name, 'Rotate key');
  await devices.confirmRotate(name);
  await expect(devices.key).toBeVisible();

  // Back within the site: asked in the page; staying keeps the key.
  await page.goBack();
  const ask = page.getByRole('dialog', { name: 'Leave before storing it?' });
  await expect(ask).toContainText('Device key');
  await ask.getByRole('button', { name: 'Stay and store it' }).click();
  await expect(page).toHaveURL(/\/devices$/);
  await expect(devices.key).toBeVisible();

  // Opened straight at /devices, where Back would leave the site: asked in the page too.
  await devices.goto();
  await devices.action(name, 'Rotate key');
  await devices.confirmRotate(name);
  await expect(devices.key).toBeVisible();
  await page.goBack();
  await expect(ask).toContainText('Device key');
  await ask.getByRole('button', { name: 'Stay and store it' }).click();
  await expect(page).toHaveURL(/\/devices$/);
  await expect(devices.key).toBeVisible();
  // Once stored, Back goes where it went before.
  await page.getByRole('button', { name: 'I have stored the key' }).click();
  await expect(devices.key).toHaveCount(0);
});

test('Esc and × on a dirty dialog (device, administrator, space, password) ask first', async ({
  page,
  admin,
}) => {
  test.setTimeout(120_000);
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  await devices.register.click();
  const register = page.getByRole('dialog', { name: 'Register device' });
  // Untouched: Esc closes at once.
  await page.keyboard.press('Escape');
  await expect(register).toHaveCount(0);

  await devices.register.click();
  const sn = register.getByRole('textbox', { name: 'Serial number' });
  await sn.fill('SN-HALF-TYPED');
  await page.keyboard.press('Escape');
  const ask = discardQuestion(page);
  await expect(ask).toBeVisible();
  await expectAccessible(page);
  await ask.getByRole('button', { name: 'Keep editing' }).click();
  await expect(sn).toHaveValue('SN-HALF-TYPED');
  await register.getByRole('button', { name: 'Close' }).click();
  await expect(ask).toBeVisible();
  await ask.getByRole('button', { name: 'Discard' }).click();
  await expect(register).toHaveCount(0);

  const admins = new AdministratorsListPage(page);
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Administrators' })
    .click();
  await admins.create.click();
  /** Typed into `field`, then `close`: the question comes, and Keep editing keeps the text. */
  const asksFirst = async (field: Locator, typed: string, close: () => Promise<void>) => {
    await field.fill(typed);
    await close();
    await expect(ask).toBeVisible();
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await expect(field).toHaveValue(typed);
  };
  const escape = () => page.keyboard.press('Escape');
  const form = admins.dialog('New administrator');
  await asksFirst(form.getByRole('textbox', { name: 'Username' }), 'half-typed', () =>
    form.getByRole('button', { name: 'Close' }).click(),
  );
  await escape();
  await ask.getByRole('button', { name: 'Discard' }).click();
  await expect(form).toHaveCount(0);

  // New space and Change password too (outside eyes: Esc threw what was typed away).
  await page.goto('/spaces');
  await page.getByRole('button', { name: 'New space' }).click();
  const space = page.getByRole('dialog', { name: 'New space' });
  await asksFirst(space.getByRole('textbox', { name: 'Name' }), 'Half-typed gate', escape);
  await escape();
  await ask.getByRole('button', { name: 'Discard' }).click();
  await expect(space).toHaveCount(0);
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Change password' }).click();
  const password = page.getByRole('dialog', { name: 'Change your password' });
  await asksFirst(password.getByLabel('Current password', { exact: true }), 'half typed', escape);
});

test('administrators: no Disable on one’s own row; display name, role and organization edited', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(120_000);
  const username = `edit-${tag()}`;
  const org = { name: `Branch ${tag()}` };
  await adminApi.post('/api/organizations', org);
  await signIn(page, admin, '/administrators');
  const admins = new AdministratorsListPage(page);
  await expect(admins.heading).toBeVisible();
  await expect(admins.row(admin.username)).toContainText('(you)');
  await expect(admins.row(admin.username)).toContainText('Super administrator');
  await expect(page.getByText(/superadmin/i)).toHaveCount(0);

  // One's own row: no Disable, no password reset; Edit keeps the role as it is.
  await admins.openActions(admin.username);
  await expect(admins.menuItem('Edit')).toBeVisible();
  await expect(admins.menuItem('Disable (ends sessions)')).toHaveCount(0);
  await expect(admins.menuItem('Reset password')).toHaveCount(0);
  await admins.menuItem('Edit').click();
  const own = admins.dialog(`Edit ${admin.username}`);
  await expect(own.getByRole('combobox', { name: 'Role' })).toBeDisabled();
  await expect(own).toContainText('Nobody changes their own role');
  await page.keyboard.press('Escape');
  await expect(own).toHaveCount(0);

  // Another account: display name, role, organization.
  await admins.createAccount(username, 'Operator (reads only)');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await admins.openActions(username);
  await admins.menuItem('Edit').click();
  const edit = admins.dialog(`Edit ${username}`);
  await edit.getByRole('textbox', { name: 'Display name' }).fill('Night clerk');
  await edit.getByRole('combobox', { name: 'Role' }).click();
  await page.getByRole('option', { name: 'Administrator', exact: true }).click();
  await edit.getByRole('combobox', { name: 'Organization' }).click();
  await page.getByRole('option', { name: org.name, exact: true }).click();
  await expectAccessible(page);
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toHaveCount(0);
  const row = admins.row(username);
  await expect(row).toContainText('Night clerk');
  await expect(row).toContainText('Administrator');
  await expect(row.getByTestId('administrator-organization')).toHaveText(org.name);

  // Someone else saved first: the form says so and takes their change in.
  await admins.openActions(username);
  await admins.menuItem('Edit').click();
  const found = (await adminApi.get(`/api/administrators?q=${username}`)) as {
    items: { id: string }[];
  };
  await adminApi.patch(`/api/administrators/${found.items[0]?.id ?? ''}`, {
    displayName: 'Day clerk',
  });
  await edit.getByRole('combobox', { name: 'Role' }).click();
  await page.getByRole('option', { name: 'Operator (reads only)', exact: true }).click();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit.getByTestId('edit-conflict')).toContainText('Day clerk');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toHaveCount(0);
  await expect(row).toContainText('Day clerk');
  await expect(row).toContainText('Operator');

  // A display name cleared is gone: the list shows the user name alone (outside eyes: kept).
  await admins.openActions(username);
  await admins.menuItem('Edit').click();
  await edit.getByRole('textbox', { name: 'Display name' }).fill('');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toHaveCount(0);
  await expect(row).not.toContainText('Day clerk');
  const cleared = (await adminApi.get(`/api/administrators?q=${username}`)) as {
    items: { displayName: string }[];
  };
  expect(cleared.items[0]?.displayName).toBe(username);
  await page.screenshot({ path: test.info().outputPath('administrators-1280.png') });
  await expectNothingClippedAt390(page);
  await page.screenshot({ path: test.info().outputPath('administrators-390.png') });
});
