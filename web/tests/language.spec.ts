/**
 * Issue 34: the site in Simplified Chinese and English. A zh-CN browser gets Chinese from the
 * start, server errors included; a choice made with the header's switch shows at once, survives
 * a reload and follows the administrator to another browser.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { tag, type Account } from './support/admin-api';

/** The site's own sign-in page model, in the words of the language it should show. */
async function signInAs(
  page: Page,
  account: Account,
  words: { username: string; password: string; submit: string },
) {
  await page.goto('/');
  await page.getByLabel(words.username, { exact: true }).fill(account.username);
  await page.getByLabel(words.password, { exact: true }).fill(account.password);
  await page.getByRole('button', { name: words.submit, exact: true }).click();
  await expect(page.getByTestId('current-username')).toHaveText(account.username);
}

const zh = { username: '用户名', password: '密码', submit: '登录' };
const en = { username: 'Username', password: 'Password', submit: 'Sign in' };

const sections = (page: Page) => page.getByRole('navigation', { name: /Sections|页面/ });

test.describe('in a zh-CN browser', () => {
  test.use({ locale: 'zh-CN' });

  test('the sign-in page, the navigation and a server error are in Chinese', async ({
    page,
    admin,
  }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: '登录', level: 1 })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await signInAs(page, admin, zh);

    const nav = sections(page);
    for (const name of ['概览', '空间', '系统配置', '设备', '人员', '识别记录', '同步']) {
      await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
    }
    await expect(nav.getByRole('link', { name: 'People', exact: true })).toHaveCount(0);

    // The server judges the password's strength and answers in English with a code and its
    // values; the page says it in Chinese.
    await page.getByRole('button', { name: '账号' }).click();
    await page.getByRole('menuitem', { name: '修改密码' }).click();
    const dialog = page.getByRole('dialog', { name: '修改您的密码' });
    await dialog.getByLabel('当前密码', { exact: true }).fill(admin.password);
    await dialog.getByLabel('新密码', { exact: true }).fill('short one');
    await dialog.getByLabel('确认新密码', { exact: true }).fill('short one');
    await dialog.getByRole('button', { name: '修改密码' }).click();
    await expect(dialog.getByTestId('own-password-error')).toHaveText(
      '至少使用 12 个字符（几个互不相关的词就很好）。',
    );
    await expect(dialog).not.toContainText('Use at least');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: '放弃', exact: true }).click();

    // A 500, as the server answers it: said in Chinese, with the request id the operator's log
    // names (outside eyes: the Chinese text had none).
    await page.route('**/api/spaces?*', (route) =>
      route.fulfill({
        status: 500,
        json: {
          error: {
            code: 'internal_error',
            message: 'Something went wrong on the server (request r-zh-500).',
            params: { requestId: 'r-zh-500' },
          },
        },
      }),
    );
    await nav.getByRole('link', { name: '空间', exact: true }).click();
    await expect(page.getByRole('main')).toContainText('服务器出错');
    await expect(page.getByRole('main')).toContainText('请求编号 r-zh-500');
    await expect(page.getByRole('main')).not.toContainText('Something went wrong');
  });

  test('the audit log says what happened in Chinese, a setting by its name', async ({
    page,
    admin,
    adminApi,
  }) => {
    // Audit rows carry a code and its values; the page words them (issue #34).
    const t = tag();
    const hall = await adminApi.createSpace(`Lobby ${t}`);
    await adminApi.patch(`/api/spaces/${hall.id}`, { name: `Lobby 2 ${t}` });
    // The site's time zone set to what it is: a change of a setting, audited all the same.
    await adminApi.put('/api/settings/time-zone', { timeZone: null });
    await signInAs(page, admin, zh);

    await page.goto(`/audit?targetType=space&targetId=${hall.id}`);
    const rows = page.getByTestId('audit-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).getByTestId('audit-summary')).toHaveText(
      `空间“Lobby 2 ${t}”：由“Lobby ${t}”改名`,
    );
    await expect(rows.nth(1).getByTestId('audit-summary')).toHaveText(
      `创建了空间“Lobby ${t}”（顶层）`,
    );

    await page.goto('/audit?action=settings.time_zone_change');
    const zone = page.getByTestId('audit-row').first();
    await expect(zone).toContainText('设置 时区');
    await expect(zone).not.toContainText('设置 time_zone');
    await expect(zone.getByTestId('audit-summary')).toContainText('站点时区');
    await expect(zone.getByTestId('audit-summary')).not.toContainText('site time zone');
  });

  test('a refused space deletion says in Chinese what is left, with the counts', async ({
    page,
    admin,
    adminApi,
  }) => {
    // The server's 409 carries `space_in_use` and the counts; the site words it (issue #34).
    const t = tag();
    const hall = await adminApi.createSpace(`Hall ${t}`);
    await adminApi.post('/api/spaces', { name: `Booth ${t}`, parentId: hall.id });
    for (const n of [1, 2]) {
      await adminApi.createPerson({
        name: `Guest ${n} ${t}`,
        idNumber: `ZH${n}${t}`,
        spaceIds: [hall.id],
      });
    }
    await signInAs(page, admin, zh);
    await page.goto(`/spaces?space=${hall.id}`);
    await page.getByRole('button', { name: '删除', exact: true }).click();
    const ask = page.getByRole('dialog', { name: `删除空间 Hall ${t}？` });
    await ask.getByRole('button', { name: '删除空间' }).click();
    const refusal = page.getByTestId('space-refusal');
    await expect(refusal).toContainText(
      '无法删除此空间：仍有 2 名人员可访问此空间；其下还有 1 个子空间；请先移除或移走它们。',
    );
    await expect(refusal).not.toContainText('cannot be deleted');
  });
});

test('the header switch changes the language at once; reload and another browser keep it', async ({
  page,
  browser,
  admin,
  baseURL,
}) => {
  // Two browsers signing in, and three reloads.
  test.setTimeout(60_000);
  await signInAs(page, admin, en);
  const nav = sections(page);
  await expect(nav.getByRole('link', { name: 'People', exact: true })).toBeVisible();

  await page.getByRole('button', { name: '简体中文' }).click();
  await expect(nav.getByRole('link', { name: '人员', exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');

  await page.reload();
  await expect(sections(page).getByRole('link', { name: '人员', exact: true })).toBeVisible();

  // Another browser, English by its own settings: the account's choice wins once signed in.
  const context = await browser.newContext({ locale: 'en-US', baseURL });
  try {
    const other = await context.newPage();
    await signInAs(other, admin, en);
    await expect(sections(other).getByRole('link', { name: '人员', exact: true })).toBeVisible();
    await other.getByRole('button', { name: 'English' }).click();
    await expect(sections(other).getByRole('link', { name: 'People', exact: true })).toBeVisible();
  } finally {
    await context.close();
  }
  await page.reload();
  await expect(sections(page).getByRole('link', { name: 'People', exact: true })).toBeVisible();
});

test('a notice shown before the language is switched is said in the new language', async ({
  page,
  admin,
  adminApi,
}) => {
  // Outside eyes: a banner stayed in English after the switch to 中文. Each kind of banner the
  // site keeps: a page action's failure, a form's outcome and refusal, a page's own notice.
  // Four pages, each worded in English, then Chinese, then English again.
  test.setTimeout(120_000);
  const device = await adminApi.createDevice(`Noticed ${tag()}`);
  const conflict = {
    status: 409,
    json: {
      error: {
        code: 'conflict',
        message: 'This conflicts with the current state; reload and try again.',
        params: {},
      },
    },
  };
  await page.route(`**/api/devices/${device.id}`, (route) =>
    route.request().method() === 'PATCH' ? route.fulfill(conflict) : route.fallback(),
  );
  await page.route('**/api/recognition/retention', (route) =>
    route.request().method() === 'POST' ? route.fulfill(conflict) : route.fallback(),
  );
  const panel = 'http://panel.test/api/recognition';
  await page.route('**/api/panel/test', (route) =>
    route.fulfill({ json: { ok: true, url: panel, ms: 12 } }),
  );
  const switchTo = async (language: '简体中文' | 'English') => {
    await page.getByRole('button', { name: language }).click();
    await expect(page.locator('html')).toHaveAttribute(
      'lang',
      language === 'English' ? 'en' : 'zh-CN',
    );
  };
  const saysAfterSwitch = async (
    banner: Locator,
    english: string | RegExp,
    chinese: string | RegExp,
  ) => {
    await expect(banner).toContainText(english);
    await switchTo('简体中文');
    await expect(banner).toContainText(chinese);
    await expect(banner).not.toContainText(english);
    await switchTo('English');
    await expect(banner).toContainText(english);
  };
  await signInAs(page, admin, en);

  await page.goto('/devices');
  await page.getByRole('button', { name: `Actions for ${device.name}` }).click();
  await page.getByRole('menuitem', { name: 'Disable' }).click();
  await saysAfterSwitch(page.getByTestId('devices-error'), 'This conflicts', '与当前状态冲突');

  await page.goto(`/devices/${device.id}`);
  await page.getByRole('button', { name: 'Reconcile now' }).click();
  await saysAfterSwitch(
    page.getByTestId('device-notice'),
    /Reconciliation started|already running/,
    /核对已开始|已有一次核对/,
  );

  await page.goto('/system');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await saysAfterSwitch(
    page.getByTestId('panel-message'),
    `The panel at ${panel} answered in 12 ms.`,
    `${panel} 的面板在 12 毫秒内响应。`,
  );

  await page.goto('/settings');
  const days = page.getByRole('textbox', { name: 'Keep recognition events for (days)' });
  await days.fill(String(Number(await days.inputValue()) + 1));
  await page.getByRole('button', { name: 'Save retention' }).click();
  await saysAfterSwitch(page.getByTestId('settings-message'), 'This conflicts', '与当前状态冲突');
});
