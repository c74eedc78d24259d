import { organizationOut, spaceOut } from '@svc/shared';
import { z } from 'zod';
import { expect, test } from './data-fixtures';
import { PeopleListPage, signIn } from './data-pages';
import { OrganizationSwitcher, OrganizationsPage, SpacesPage } from './site-pages';
import { AdminApi, tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

const spaceList = z.object({ items: z.array(spaceOut) });

test('a superadmin works in a second organization: the header switcher scopes every page, and what is created goes there', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(60_000);
  const t = tag();
  const branch = organizationOut.parse(
    await adminApi.post('/api/organizations', { name: `Branch ${t}` }),
  );
  await adminApi.createSpace(`Home hall ${t}`);
  await adminApi.createPerson({ name: `Home person ${t}`, idNumber: `HP${t}`.toUpperCase() });

  await signIn(page, admin, '/spaces');
  const switcher = new OrganizationSwitcher(page);
  const spaces = new SpacesPage(page);
  await expect(switcher.input).toHaveValue('All organizations');
  await expect(spaces.node(`Home hall ${t}`)).toBeVisible();

  await switcher.choose(`Branch ${t}`);
  await expect(spaces.node(`Home hall ${t}`)).toHaveCount(0);
  await spaces.newSpace.click();
  await spaces.fill(`Branch hall ${t}`);
  await expect(spaces.node(`Branch hall ${t}`)).toBeVisible();
  await expectAccessible(page);

  // The choice belongs to the session: a reload keeps it, and every page is limited to it.
  await page.goto(`/people?q=${encodeURIComponent(`Home person ${t}`)}`);
  const people = new PeopleListPage(page);
  await expect(people.heading).toBeVisible();
  await expect(switcher.input).toHaveValue(`Branch ${t}`);
  await expect(people.total).toContainText('0');
  await expect(people.rows).toHaveCount(0);

  // What was created belongs to the branch (the API session works in all organizations).
  const all = spaceList.parse(await adminApi.get('/api/spaces')).items;
  expect(all.find((s) => s.name === `Branch hall ${t}`)?.organizationId).toBe(branch.id);

  await switcher.choose('All organizations');
  await expect(people.rows.filter({ hasText: `Home person ${t}` })).toHaveCount(1);
});

test('a superadmin creates an administrator of another organization, who sees and manages only that one', async ({
  page,
  admin,
  adminApi,
  browser,
  playwright,
  site,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  const username = `branch-admin-${t}`;
  await adminApi.post('/api/organizations', { name: `Annex ${t}` });
  await adminApi.createSpace(`Home lobby ${t}`);

  // The organizations page offers to work in each one, as the header's switcher does.
  await signIn(page, admin, '/organizations');
  await page.getByRole('button', { name: `Work in it: Annex ${t}` }).click();
  await expect(new OrganizationSwitcher(page).input).toHaveValue(`Annex ${t}`);
  await expect(new OrganizationsPage(page).row(`Annex ${t}`)).toContainText('Working in it');
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Administrators' })
    .click();
  await page.getByRole('button', { name: 'New administrator' }).click();
  const dialog = page.getByRole('dialog', { name: 'New administrator' });
  // The organization worked in is the one offered; it can be changed.
  await expect(dialog.getByRole('combobox', { name: 'Organization' })).toHaveValue(`Annex ${t}`);
  await dialog.getByRole('textbox', { name: 'Username' }).fill(username);
  await dialog.getByRole('combobox', { name: 'Role' }).click();
  await page.getByRole('option', { name: 'Administrator', exact: true }).click();
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Create' }).click();
  const otp = page.getByTestId('one-time-password');
  await expect(otp).toBeVisible();
  const temporary = (await otp.textContent()) ?? '';
  await page.getByRole('button', { name: 'I have stored it' }).click();
  const row = page.locator(`[data-testid="administrator-row"][data-username="${username}"]`);
  await expect(row.getByTestId('administrator-organization')).toHaveText(`Annex ${t}`);
  // The superadmin's own account is of the home organization: not listed while in the annex.
  await expect(
    page.locator(`[data-testid="administrator-row"][data-username="${admin.username}"]`),
  ).toHaveCount(0);

  // The new administrator signs in (first password changed through the API).
  const { api, account } = await AdminApi.signIn(playwright, site.serverURL, {
    username,
    password: temporary,
  });
  const created = spaceOut.parse(await api.post('/api/spaces', { name: `Annex hall ${t}` }));
  await api.dispose();
  const other = await browser.newPage({ baseURL: page.url() });
  await signIn(other, account, '/spaces');
  const spaces = new SpacesPage(other);
  await expect(spaces.node(`Annex hall ${t}`)).toBeVisible();
  await expect(spaces.node(`Home lobby ${t}`)).toHaveCount(0);
  // No switcher for an administrator of one organization.
  await expect(new OrganizationSwitcher(other).input).toHaveCount(0);
  await other.goto('/administrators');
  await expect(other.getByRole('heading', { name: 'Administrators', level: 1 })).toBeVisible();
  await expect(other.getByTestId('administrator-row')).toHaveCount(1);
  await expect(other.getByTestId('administrator-row')).toHaveAttribute('data-username', username);
  await other.close();

  const all = spaceList.parse(await adminApi.get('/api/spaces')).items;
  expect(all.find((s) => s.id === created.id)?.organizationId).not.toBe(
    all.find((s) => s.name === `Home lobby ${t}`)?.organizationId,
  );
});

test("on a phone a superadmin's header fits, and the switcher is at the top of the navigation", async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await adminApi.post('/api/organizations', { name: `Pocket ${t}` });
  await signIn(page, admin, '/spaces');
  await expectNothingClippedAt390(page);
  const banner = page.getByRole('banner');
  await expect(banner.getByRole('combobox', { name: 'Organization' })).toHaveCount(0);
  await expect(banner.getByRole('button', { name: 'Account' })).toBeInViewport({ ratio: 1 });
  await expect(banner.getByRole('button', { name: '简体中文' })).toBeInViewport({ ratio: 1 });
  await expectAccessible(page, 'spaces at 390 px');
  await page.screenshot({ path: test.info().outputPath('header-390.png') });

  await banner.getByRole('button', { name: 'Navigation' }).click();
  const switcher = new OrganizationSwitcher(page, 'navigation');
  await expect(switcher.input).toBeInViewport();
  await expect(switcher.input).toHaveValue('All organizations');
  await expectAccessible(page, 'the navigation open at 390 px');
  await page.screenshot({ path: test.info().outputPath('navigation-390.png') });
  await switcher.choose(`Pocket ${t}`);
  await page.reload();
  await banner.getByRole('button', { name: 'Navigation' }).click();
  await expect(switcher.input).toHaveValue(`Pocket ${t}`);
  await switcher.choose('All organizations');
});
