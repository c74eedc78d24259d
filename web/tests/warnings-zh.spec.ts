/**
 * Issue #34: the service's warnings (the heartbeat's `warningDetails`: a code and its values)
 * are worded by the site in the session's language; the server's English stays in `warnings`
 * for monitors and API users and never shows in a zh-CN session.
 */
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { heartbeatResponse } from '@svc/shared';
import { expect, test as base, withStack, type Stack } from './fixtures';
import { AdminApi, type Account } from './support/admin-api';

/** A stack of its own that advertises a loopback central address: the heartbeat warns. */
const test = base.extend<{ loopback: { stack: Stack; admin: Account } }>({
  loopback: [
    async ({ nginxBin, runDir, playwright }, use) => {
      await withStack(
        nginxBin,
        mkdtempSync(path.join(runDir, 'loopback-')),
        async (stack) => {
          const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
            username: stack.adminUsername,
            password: stack.adminPassword,
          });
          await api.dispose();
          await use({ stack, admin: account });
        },
        { DISCOVERY_HTTP_BASE_URL: 'http://127.0.0.1:8000' },
      );
    },
    { timeout: 90_000 },
  ],
  site: async ({ loopback }, use) => {
    await use(loopback.stack);
  },
});

test.use({ locale: 'zh-CN' });

test('the loopback warning is in Chinese on the dashboard and the system page', async ({
  page,
  loopback,
  request,
}) => {
  const beat = heartbeatResponse.parse(await (await request.get('/api/heartbeat')).json());
  expect(beat.warnings.join('\n')).toMatch(/loopback/);
  expect(beat.warningDetails).toContainEqual(
    expect.objectContaining({
      code: 'advertised_loopback',
      params: { address: 'http://127.0.0.1:8000' },
    }),
  );

  await page.goto('/');
  await page.getByLabel('用户名', { exact: true }).fill(loopback.admin.username);
  await page.getByLabel('密码', { exact: true }).fill(loopback.admin.password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  const status = page.getByTestId('status-warnings');
  await expect(status).toContainText(
    '对外公布的中心服务地址 http://127.0.0.1:8000 是环回地址：网络上的终端无法访问它',
  );
  await expect(status).not.toContainText('loopback');

  await page.goto('/system');
  const system = page.getByTestId('system-warnings');
  await expect(system).toContainText('http://127.0.0.1:8000 是环回地址');
  await expect(system).not.toContainText('loopback');
});
