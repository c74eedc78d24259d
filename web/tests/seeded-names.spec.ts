/**
 * Issue 34: the seed names the organization and the administrator it creates in English
 * ("Default organization", "Administrator"). While they are still the seed's, a zh-CN session
 * says them in Chinese; once an administrator renames them, the stored name shows as it is.
 */
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test as base, withStack, type Stack } from './fixtures';
import { OrganizationSwitcher } from './site-pages';
import { AdminApi, type Account } from './support/admin-api';

/** A stack of the test's own: the test renames the seeded organization and administrator. */
const test = base.extend<{ seeded: { stack: Stack; api: AdminApi; admin: Account } }>({
  seeded: [
    async ({ nginxBin, runDir, playwright }, use) => {
      await withStack(nginxBin, mkdtempSync(path.join(runDir, 'seeded-')), async (stack) => {
        const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
          username: stack.adminUsername,
          password: stack.adminPassword,
        });
        try {
          await use({ stack, api, admin: account });
        } finally {
          await api.dispose();
        }
      });
    },
    { timeout: 90_000 },
  ],
  site: async ({ seeded }, use) => {
    await use(seeded.stack);
  },
});

test.use({ locale: 'zh-CN' });

async function signIn(page: Page, admin: Account, to: string) {
  await page.goto(to);
  await page.getByLabel('用户名', { exact: true }).fill(admin.username);
  await page.getByLabel('密码', { exact: true }).fill(admin.password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await expect(page.getByTestId('current-username')).toHaveText(admin.username);
}

test("the seed's organization and administrator are named in Chinese until renamed", async ({
  page,
  seeded,
}) => {
  const { api, admin } = seeded;
  await signIn(page, admin, '/organizations');
  const user = page.getByTestId('current-user');
  await expect(user).toContainText('（管理员）');
  await expect(user).not.toContainText('Administrator');
  const rows = page.getByTestId('organization-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('默认组织');
  await expect(rows.first()).not.toContainText('Default organization');
  await page.goto('/administrators');
  await expect(page.getByTestId('administrator-row').first()).toContainText('管理员');
  await expect(page.getByTestId('administrator-organization').first()).toHaveText('默认组织');
  await expect(page.locator('main')).not.toContainText(/Default organization|Administrator/);

  // Renamed by an administrator (in English, on purpose): shown as stored, in any language.
  const [org] = ((await api.get('/api/organizations')) as { items: { id: string; name: string }[] })
    .items;
  await api.patch(`/api/organizations/${org!.id}`, { name: 'Head office' });
  const me = (await api.get('/api/auth/me')) as { user: { id: string } };
  await api.patch(`/api/administrators/${me.user.id}`, { displayName: 'Site Lead' });

  await page.goto('/organizations');
  await expect(rows.first()).toContainText('Head office');
  await expect(user).toContainText('（Site Lead）');
  await page.goto(`/audit?targetType=organization&targetId=${org!.id}`);
  await expect(page.getByTestId('audit-summary').first()).toHaveText(
    '将组织“默认组织”改名为“Head office”',
  );
});

test("a switch of language keeps the seed's organization named in the switcher", async ({
  page,
  seeded,
}) => {
  await signIn(page, seeded.admin, '/organizations');
  const switcher = page.getByRole('banner').getByRole('combobox', { name: '组织' });
  await switcher.click();
  await page.getByRole('option', { name: '默认组织', exact: true }).click();
  await expect(switcher).toHaveValue('默认组织');
  const row = page.getByTestId('organization-row').first();
  await expect(row).toContainText('当前所在');

  // Outside eyes: after the header's switch the organization worked in was no longer named.
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  const english = new OrganizationSwitcher(page);
  await expect(english.input).toHaveValue('Default organization');
  await expect(row).toContainText('Working in it');
  await page.getByRole('button', { name: '简体中文' }).click();
  await expect(switcher).toHaveValue('默认组织');
});

test("the seed's organization saved unchanged in the rename form stays the seed's", async ({
  page,
  seeded,
}) => {
  const { api, admin } = seeded;
  await signIn(page, admin, '/organizations');
  const row = page.getByTestId('organization-row').first();

  // The rename form shows the name as the page does. Saved as it is, nothing is renamed: stored
  // as 默认组织 it would no longer be the seed's, and an English reader would read Chinese.
  await row.getByRole('button', { name: '重命名 默认组织' }).click();
  const dialog = page.getByRole('dialog', { name: '重命名组织' });
  await expect(dialog.getByRole('textbox', { name: '名称' })).toHaveValue('默认组织');
  await dialog.getByRole('button', { name: '保存' }).click();
  await expect(dialog).toHaveCount(0);
  const stored = (await api.get('/api/organizations')) as { items: { name: string }[] };
  expect(stored.items.map((o) => o.name)).toEqual(['Default organization']);
});
