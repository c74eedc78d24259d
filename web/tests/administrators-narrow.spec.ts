import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';

/**
 * The Administrators table on a phone and in Simplified Chinese: at 390 px it says that it
 * scrolls sideways (the Events page's hint), and one's own row reads "admin（您）", the
 * full-width bracket right after the name with no space before it.
 */

test('administrators at 390 px: the table says it scrolls sideways', async ({ page, admin }) => {
  test.setTimeout(60_000);
  await signIn(page, admin, '/administrators');
  const table = page.getByRole('table', { name: 'Administrators' });
  await expect(table).toBeVisible();
  await expect(page.getByTestId('scroll-hint')).toBeHidden();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('scroll-hint')).toHaveText(
    'More columns to the right: swipe the table sideways.',
  );
});

test.describe('in Simplified Chinese', () => {
  test.use({ locale: 'zh-CN' });

  test('one’s own row says （您） with no space before the bracket', async ({ page, admin }) => {
    test.setTimeout(60_000);
    await page.goto('/administrators');
    await page.getByLabel('用户名', { exact: true }).fill(admin.username);
    await page.getByLabel('密码', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    const own = page.locator(
      `[data-testid="administrator-row"][data-username="${admin.username}"] td`,
    );
    await expect(own.first()).toContainText(`${admin.username}（您）`);
    await expect(own.first()).not.toContainText(`${admin.username} （您）`);
  });
});
