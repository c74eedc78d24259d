import { panelRoute, settingsOut } from '@svc/shared';
import { expect, test } from './data-fixtures';
import { SettingsPage } from './bulk-pages';
import { signIn } from './data-pages';
import { AuditPage } from './review-pages';
import { SystemPage } from './site-pages';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('settings: the event retention is changed with the shared rule, audited; session timeouts shown', async ({
  page,
  admin,
  adminApi,
}) => {
  // Retention changed, refused, audited and read back on two pages.
  test.setTimeout(60_000);
  await signIn(page, admin, '/settings');
  const settings = new SettingsPage(page);
  await expect(settings.heading).toBeVisible();
  const before = settingsOut.parse(await adminApi.get('/api/settings')).eventRetentionDays;
  await expect(settings.retention).toHaveValue(String(before));
  await expect(settings.sessions).toContainText('30 minutes');
  await expect(settings.sessions).toContainText('12 hours');
  await expectAccessible(page);

  // Out of the shared schema's range: said at once, nothing sent.
  await settings.retention.fill('0');
  await expect(page.getByText(/greater than or equal to 1|at least 1|>=1/i)).toBeVisible();
  await settings.save.click();
  expect(settingsOut.parse(await adminApi.get('/api/settings')).eventRetentionDays).toBe(before);

  // Not a whole number: kept as typed and refused in words, never rewritten (1.5 is not 15).
  const wholeNumber = 'Enter a whole number of days from 1 to 3650, such as 30';
  for (const typed of ['1.5', '-5']) {
    await settings.retention.fill(typed);
    await expect(settings.retention).toHaveValue(typed);
    await expect(page.getByText(wholeNumber)).toBeVisible();
    await settings.save.click();
    expect(settingsOut.parse(await adminApi.get('/api/settings')).eventRetentionDays).toBe(before);
  }
  // Full-width digits are the digits they are.
  const wide = before === 30 ? 31 : 30;
  await settings.retention.fill(
    String(wide).replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))),
  );
  await expect(page.getByText(wholeNumber)).toHaveCount(0);
  await settings.save.click();
  await expect(settings.message).toHaveText(`Events are now kept for ${wide} days.`);
  await expect(settings.retention).toHaveValue(String(wide));
  expect(settingsOut.parse(await adminApi.get('/api/settings')).eventRetentionDays).toBe(wide);

  const next = 45;
  await settings.retention.fill(String(next));
  await settings.save.click();
  await expect(settings.message).toHaveText(`Events are now kept for ${next} days.`);
  expect(settingsOut.parse(await adminApi.get('/api/settings')).eventRetentionDays).toBe(next);
  await page.reload();
  await expect(settings.retention).toHaveValue(String(next));
  await expectNothingClippedAt390(page);

  // The audit log finds the change.
  await page.setViewportSize({ width: 1280, height: 800 });
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.search({ Action: 'recognition.retention' });
  await expect(audit.rows.first()).toContainText(
    `Recognition event retention ${wide} → ${next} days`,
  );
  await expect(audit.rows.first()).toContainText(admin.username);
});

test('an operator sees the settings but cannot change them', async ({ page, operator }) => {
  await signIn(page, operator, '/settings');
  const settings = new SettingsPage(page);
  await expect(settings.retention).toHaveAttribute('readonly', '');
  await expect(settings.save).toHaveCount(0);
  await expect(settings.sessions).toContainText('30 minutes');
  await expectAccessible(page);
});

test("an organization's administrator is told the panel route is a superadmin's, with no controls", async ({
  page,
  adminApi,
  playwright,
}) => {
  const orgAdmin = await adminApi.createAccount(playwright, 'admin');
  const sentence =
    'The panel route is shared by every organization: only a super administrator can see or change it.';
  await signIn(page, orgAdmin, '/settings');
  await expect(new SettingsPage(page).save).toBeVisible();
  await expect(page.getByTestId('panel-superadmin-only')).toHaveText(sentence);
  await expect(page.getByTestId('settings-panel-url')).toHaveCount(0);
  await expectAccessible(page);

  const system = new SystemPage(page);
  await page.goto('/system');
  await expect(system.heading).toBeVisible();
  await expect(page.getByTestId('panel-superadmin-only')).toHaveText(sentence);
  await expect(system.panelUrl).toHaveCount(0);
  await expect(system.savePanel).toHaveCount(0);
  await expect(system.testPanel).toHaveCount(0);
  // No failed load of the route shows either: the site does not ask for it.
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expectAccessible(page);

  // Nor does the dashboard's first-session list ask them to test it.
  await page.goto('/');
  const steps = page.getByTestId('checklist-step');
  await expect(steps.last()).toContainText('A recognition seen');
  await expect(steps.filter({ hasText: 'Panel route' })).toHaveCount(0);
});

test('with no panel route the settings say so in a sentence of its own, in both languages', async ({
  page,
  admin,
  adminApi,
}) => {
  const saved = panelRoute.parse(await adminApi.get('/api/panel/route'));
  await adminApi.post('/api/panel/route', { ...saved, url: '' });
  try {
    await signIn(page, admin, '/settings');
    const none = page.getByTestId('settings-panel-none');
    await expect(none).toHaveText(
      'No panel route is configured yet, so recognition results are not sent anywhere. It is set and tested on System Configuration.',
    );
    await expect(page.getByTestId('settings-panel-url')).toHaveCount(0);
    await page.getByRole('button', { name: '简体中文' }).click();
    await expect(none).toHaveText(
      '尚未配置面板路由，识别结果不会发送到任何地方。可在系统配置中设置和测试。',
    );
    await page.getByRole('button', { name: 'English' }).click();
  } finally {
    await adminApi.post('/api/panel/route', saved);
  }
});

test('Test connection says on screen, not in a tooltip, why it waits for a save', async ({
  page,
  admin,
}) => {
  // Outside eyes: the reason was a hover title only, which a touch screen never shows.
  await signIn(page, admin, '/system');
  const system = new SystemPage(page);
  await expect(system.testPanel).toBeEnabled();
  await expect(system.testPanelReason).toHaveCount(0);
  await system.panelUrl.fill(`http://192.0.2.10:8181/api/recognition?unsaved=${Date.now()}`);
  await expect(system.testPanel).toBeDisabled();
  const why =
    'Save the panel route first: Test connection tries the saved route, not the one typed.';
  await expect(system.testPanelReason).toHaveText(why);
  await expect(system.testPanel).toHaveAccessibleDescription(why);
  await expect(system.testPanel).not.toHaveAttribute('title');

  await expectNothingClippedAt390(page);
  await system.testPanelReason.scrollIntoViewIfNeeded();
  await expect(system.testPanelReason).toBeInViewport({ ratio: 1 });
  await page.getByRole('button', { name: '简体中文' }).click();
  const zh = '请先保存面板路由：“测试连接”检查的是已保存的路由，而不是此处输入的地址。';
  await expect(system.testPanelReason).toHaveText(zh);
  await expect(page.getByRole('button', { name: '测试连接' })).toHaveAccessibleDescription(zh);
  await expect(system.testPanelReason).toBeInViewport({ ratio: 1 });
  await page.getByRole('button', { name: 'English' }).click();
});

test('a failed Test connection says why in the language shown, never the server English', async ({
  page,
  admin,
  adminApi,
}) => {
  const saved = panelRoute.parse(await adminApi.get('/api/panel/route'));
  // Nothing listens on the discard port: the connection is refused at once.
  await adminApi.post('/api/panel/route', { ...saved, url: 'http://127.0.0.1:9/api/recognition' });
  try {
    await signIn(page, admin, '/system');
    const system = new SystemPage(page);
    await system.testPanel.click();
    await expect(system.panelMessage).toContainText(
      'Test failed: The panel could not be reached (ECONNREFUSED).',
    );
    await page.getByRole('button', { name: '简体中文' }).click();
    await expect(system.panelMessage).toContainText('测试失败：无法连接面板（ECONNREFUSED）。');

    await adminApi.post('/api/panel/route', { ...saved, url: '' });
    await page.reload();
    await page.getByRole('button', { name: '测试连接' }).click();
    await expect(system.panelMessage).toContainText(
      '测试失败：尚未保存面板地址：识别结果不会发送。',
    );
    await expect(system.panelMessage).not.toContainText(/[A-Za-z]{4}/);
    await page.getByRole('button', { name: 'English' }).click();
  } finally {
    await adminApi.post('/api/panel/route', saved);
  }
});

test('the audit log says a reversed time range under "Until" and searches nothing', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/audit');
  const audit = new AuditPage(page);
  await expect(audit.heading).toBeVisible();
  await audit.field('From').fill('2026-11-20T10:00');
  await audit.field('Until').fill('2026-11-19T10:00');
  const searched: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/audit?')) searched.push(r.url());
  });
  await audit.form.getByRole('button', { name: 'Search' }).click();
  await expect(audit.form).toContainText(
    'The "From" time is after the "Until" time, so nothing can match: change one of them.',
  );
  await expect(audit.field('Until')).toHaveAttribute('aria-invalid', 'true');
  expect(searched).toEqual([]);
  await expectAccessible(page);
});
