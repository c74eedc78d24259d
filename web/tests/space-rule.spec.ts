/**
 * The rule that decides which people go to a device, as the forms explain it (docs/protocol.md,
 * "Synchronization"): a device gets the people with access to its space or to a space that
 * contains it. Access to a building reaches its floors' devices; a floor's does not reach the
 * lobby. The help once said the opposite ("the spaces inside it").
 */
import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { DevicesPage } from './site-pages';
import { tag } from './support/admin-api';

async function helpOf(page: Page, name: string): Promise<string> {
  const input = page.getByRole('dialog').getByRole('combobox', { name, exact: true });
  return input.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

test('the device forms and the person form say a device gets the people of its space and the spaces around it', async ({
  page,
  admin,
  adminApi,
}) => {
  test.setTimeout(60_000);
  const t = tag();
  const building = await adminApi.createSpace(`Building ${t}`);
  await adminApi.createDevice(`Lobby gate ${t}`, building.id);
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  await expect(devices.heading).toBeVisible();

  await devices.register.click();
  const registerHelp = await helpOf(page, 'Space');
  expect(registerHelp).toContain('access to this space or to a space that contains it');
  expect(registerHelp).toContain('access to one floor does not reach the building’s lobby');
  expect(registerHelp).not.toContain('spaces inside it');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Register device' })).toHaveCount(0);

  await devices.action(`Lobby gate ${t}`, 'Move to another space');
  await expect(page.getByRole('dialog', { name: `Move Lobby gate ${t}` })).toContainText(
    'everyone with access to the new space or to a space that contains it',
  );
  await page.keyboard.press('Escape');

  await page.goto('/people/new');
  const spacesHelp = await page
    .getByRole('form', { name: 'Person' })
    .getByLabel('Spaces', { exact: true })
    .evaluate((element) =>
      (element.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  expect(spacesHelp).toContain('with every space inside them');
});

test.describe('zh-CN', () => {
  test.use({ locale: 'zh-CN' });

  test('the register form says the same rule in Chinese', async ({ page, admin }) => {
    await page.goto('/devices');
    await page.getByLabel('用户名', { exact: true }).fill(admin.username);
    await page.getByLabel('密码', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await page.getByRole('button', { name: '注册设备' }).click();
    const help = await helpOf(page, '空间');
    expect(help).toContain('有权进入此空间或其任一上级空间的人员');
    expect(help).not.toContain('下级空间');
  });
});
