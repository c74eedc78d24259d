/**
 * Issue 30, the outside tester's walk (items 5-9): one truth about the central address, the
 * person's notes and the time format, a reversed event range, the retention range, the export
 * size, words whole at 390 px, and the plain-HTTP sign-in warning.
 */
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { LoginPage } from './pages';
import { lanAddress } from './safety-pages';
import { postRecognition, tag } from './support/admin-api';
import { startNginx } from './support/stack';
import { expectAccessible, expectNoSplitWords } from './support/checks';

test('sign-in over plain HTTP on a LAN address says the connection is not encrypted', async ({
  page,
  site,
  nginxBin,
  runDir,
}) => {
  test.setTimeout(90_000);
  const login = new LoginPage(page);
  const warning = page.getByTestId('login-insecure');
  // Loopback counts as secure: nothing to say.
  await login.goto('/');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(warning).toHaveCount(0);

  const address = lanAddress();
  expect(address, 'this machine has a non-loopback IPv4 address').not.toBeNull();
  const lan = await startNginx({
    nginxBin,
    runDir: mkdtempSync(path.join(runDir, 'lan-')),
    upstream: new URL(site.serverURL).host,
    host: address ?? '',
  });
  try {
    await page.goto(`${lan.url}/`);
    await expect(warning).toContainText('not encrypted');
    // A warning, not a block: signing in stays possible.
    await expect(page.getByRole('textbox', { name: 'Username' })).toBeEditable();
    await expectAccessible(page);
    await page.screenshot({ path: test.info().outputPath('login-lan-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: test.info().outputPath('login-lan-390.png') });
  } finally {
    await lan.process.stop();
  }
});

test('events: a reversed range says so and asks nothing; the export and retention say their limits', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  test.setTimeout(90_000);
  const device = await adminApi.createDevice(`Gate ${tag()}`);
  await postRecognition(page.request, site.serverURL, device, { personId: null });
  await signIn(page, admin, '/events');
  await expect(page.getByRole('heading', { name: 'Events', level: 1 })).toBeVisible();
  await expect(page.getByTestId('events-export-size')).toContainText('no size limit');
  const searched: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/recognition/events')) searched.push(r.url());
  });
  await page.getByLabel('From').fill('2026-06-02T10:00');
  await page.getByLabel('Until').fill('2026-06-01T10:00');
  await expect(page.getByTestId('events-reversed')).toContainText('“From” time is after');
  await expect(page.getByTestId('events-table')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Export CSV' })).toHaveCount(0);
  expect(searched.filter((u) => u.includes('to=2026-06-01'))).toEqual([]);
  await expect(page.getByLabel('From')).toHaveAccessibleDescription(/Date and time in/);
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('events-reversed-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('events-reversed-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto('/settings');
  await expect(
    page.getByRole('textbox', { name: 'Keep recognition events for (days)' }),
  ).toHaveAccessibleDescription(/From 1 to 3650 days/);
});

test('the person page shows phone and notes; validity inputs say their format', async ({
  page,
  admin,
  adminApi,
}) => {
  const person = await adminApi.createPerson({
    name: `Notes ${tag()}`,
    idNumber: `N${tag()}`,
    phone: '+86 10 5555 0100',
    notes: 'Night shift\nKey holder',
    validFrom: '2026-01-01',
    validUntil: '2026-12-31',
  });
  await signIn(page, admin, `/people/${person.id}`);
  await expect(page.getByTestId('person-phone')).toHaveText('+86 10 5555 0100');
  await expect(page.getByTestId('person-notes')).toContainText('Night shift');
  await expect(page.getByTestId('person-notes')).toContainText('Key holder');
  await expect(page.getByTestId('person-validity')).toContainText('1/1/2026');
  await page.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByLabel('Valid from')).toHaveAccessibleDescription(
    /Date and time in .+; the site writes it as 12\/31\/2026/,
  );
});

test('System Configuration and the dashboard say the same about the central address', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/system');
  await expect(page.getByRole('heading', { name: 'System Configuration', level: 1 })).toBeVisible();
  const main = page.getByRole('main');
  await expect(main).not.toContainText('not known');
  await expect(page.getByTestId('central-state')).toHaveText(
    'Pushed and checked in: no terminal heard yet.',
  );
  await expectAccessible(page);
});

for (const lang of ['en', 'zh'] as const) {
  test(`at 390 px in ${lang}: no word is split in headings, cells and badges; the events table says it scrolls`, async ({
    page,
    admin,
    adminApi,
    site,
  }) => {
    test.setTimeout(180_000);
    const device = await adminApi.createDevice(`Door ${tag()}`);
    await postRecognition(page.request, site.serverURL, device, { personId: null });
    await signIn(page, admin, '/');
    if (lang === 'zh') {
      await page.getByRole('button', { name: '简体中文' }).click();
      await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    }
    await page.setViewportSize({ width: 390, height: 844 });
    for (const where of [
      '/',
      '/administrators',
      '/devices',
      '/people',
      '/events',
      '/system',
      '/sync',
      '/audit',
    ]) {
      await page.goto(where);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.locator('main .mantine-Loader-root')).toHaveCount(0);
      await page.screenshot({
        path: test.info().outputPath(`${lang}${where.replace(/\//g, '_')}-390.png`),
        fullPage: true,
      });
      await expectNoSplitWords(page, where);
      if (where === '/events') await expect(page.getByTestId('scroll-hint')).toBeVisible();
    }
  });
}
