/**
 * Issue #34: in a zh-CN session the site words a sync task's failure, a field the server
 * refused after its schema check and an audit row the service wrote itself
 * from their codes and values, never the server's English.
 */
import type { Page } from '@playwright/test';
import { expect, testWithSync as test } from './data-fixtures';
import { tag } from './support/admin-api';
import type { Account } from './support/admin-api';
import { simDevice } from './sync-pages';

test.use({ locale: 'zh-CN' });

async function signInZh(page: Page, account: Account, path: string) {
  await page.goto(path);
  await page.getByLabel('用户名', { exact: true }).fill(account.username);
  await page.getByLabel('密码', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await expect(page.getByTestId('current-username')).toHaveText(account.username, {
    timeout: 30_000,
  });
}

/** Words of the server's English failure and refusal sentences. */
const ENGLISH = /answered|Attempt|trying again|device key|must be|Some fields/;

test('a failed push on the person page and /sync, and a refused device address, in Chinese', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(120_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  const { space, device, sim } = await simDevice(api, stack.serverURL, t);
  try {
    // HTTP 500: retried, so the task waits for its next attempt with the reason.
    await sim.setFaults({ status500: true });
    const person = await api.createPerson({
      name: `Fay ${t}`,
      idNumber: `P${tag()}`,
      spaceIds: [space.id],
    });
    await api.putPhoto(
      person.id,
      await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } }),
    );

    await signInZh(page, admin, `/people/${person.id}`);
    const message = page.getByTestId('sync-message').first();
    await expect(message).toContainText(`设备 ${device.sn} 返回 HTTP 500（internal_error）`, {
      timeout: 30_000,
    });
    await expect(message).toContainText(/第 \d 次尝试（共 8 次）失败，将重试：/);
    await expect(message).not.toContainText(ENGLISH);

    await page.goto(`/sync?device=${device.id}`);
    const row = page.getByTestId('task-error').first();
    await expect(row).toContainText(`设备 ${device.sn} 返回 HTTP 500（internal_error）`, {
      timeout: 30_000,
    });
    await expect(row).not.toContainText(ENGLISH);

    // A device address the schema takes but the server refuses (a query): said beside it.
    await page.goto('/devices');
    await page.getByRole('button', { name: '注册设备', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '注册设备' });
    await dialog.getByRole('textbox', { name: '序列号', exact: true }).fill(`Q-${device.sn}`);
    await dialog.getByRole('textbox', { name: '名称', exact: true }).fill(`Gate ${t}`);
    const address = dialog.getByRole('textbox', { name: '地址', exact: true });
    await address.fill('http://127.0.0.1:9/?x=1');
    await dialog.getByRole('button', { name: '注册', exact: true }).click();
    await expect(address).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog).toContainText(
      '请输入 http(s)://主机[:端口][/路径]，不要包含用户名、查询参数或片段。',
    );
    await expect(dialog).not.toContainText(ENGLISH);

    // Typed values: closing asks first.
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: '放弃已填写的内容？' });
    await ask.getByRole('button', { name: '放弃', exact: true }).click();
    await expect(dialog).toBeHidden();

    // The row the service wrote itself at first start names its actor in Chinese.
    await page.goto('/audit?action=system.initialize');
    const initialized = page.locator('[data-testid="audit-row"][data-action="system.initialize"]');
    await expect(initialized.getByTestId('audit-actor')).toHaveText('服务自身', {
      timeout: 30_000,
    });
    await expect(initialized).not.toContainText(/initialized release|seeded administrator/);
  } finally {
    await sim.stop();
  }
});
