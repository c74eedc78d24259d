import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { OrganizationsPage } from './site-pages';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('organizations: the superadmin sees the organization, marked as theirs, and their permissions', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/organizations');
  const orgs = new OrganizationsPage(page);
  await expect(orgs.heading).toBeVisible();
  await expect(orgs.rows).toHaveCount(1);
  await expect(orgs.rows.first()).toContainText('Your organization');
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
  await expect(
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Organizations' }),
  ).toHaveAttribute('aria-current', 'page');
  await expectAccessible(page);
});
