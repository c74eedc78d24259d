import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { OrganizationsPage } from './site-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('organizations: the superadmin sees the organization, marked as theirs, and their permissions', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/organizations');
  const orgs = new OrganizationsPage(page);
  await expect(orgs.heading).toBeVisible();
  await expect(orgs.rows.filter({ hasText: 'Your organization' })).toHaveCount(1);
  await expect(orgs.ownRole).toHaveText('Super administrator');
  await expect(orgs.ownPermissions).toContainText('See every organization');
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('organizations: an operator sees their own organization and a read-only role', async ({
  page,
  operator,
}) => {
  await signIn(page, operator, '/organizations');
  const orgs = new OrganizationsPage(page);
  await expect(orgs.rows).toHaveCount(1);
  await expect(orgs.rows.first()).toContainText('Your organization');
  await expect(orgs.ownRole).toHaveText('Operator');
  await expect(orgs.ownPermissions).toContainText('No changes');
  await expect(orgs.newOrganization).toHaveCount(0);
  await expect(orgs.rows.getByRole('button', { name: /^Rename/ })).toHaveCount(0);
  await expect(
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Organizations' }),
  ).toHaveAttribute('aria-current', 'page');
  await expectAccessible(page);
});

test('organizations: a superadmin creates one (the shared rule checks the name) and renames it', async ({
  page,
  admin,
}) => {
  const t = tag();
  await signIn(page, admin, '/organizations');
  const orgs = new OrganizationsPage(page);
  await orgs.newOrganization.click();
  const name = orgs.dialog.getByRole('textbox', { name: 'Name' });
  await orgs.dialog.getByRole('button', { name: 'Create' }).click();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await name.fill(`Branch ${t}`);
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await orgs.dialog.getByRole('button', { name: 'Create' }).click();
  await expect(orgs.dialog).toBeHidden();
  const row = orgs.row(`Branch ${t}`);
  await expect(row).toBeVisible();
  await expect(row).not.toContainText('Your organization');
  await expectAccessible(page);

  await row.getByRole('button', { name: `Rename Branch ${t}` }).click();
  await name.fill(`Branch office ${t}`);
  await orgs.dialog.getByRole('button', { name: 'Save' }).click();
  await expect(orgs.dialog).toBeHidden();
  await expect(orgs.row(`Branch office ${t}`)).toBeVisible();
  await page.reload();
  await expect(orgs.row(`Branch office ${t}`)).toBeVisible();
});
