/**
 * Issue 34: every time on the site is shown in the site's time zone (a setting, the server's
 * by default), whatever zone the browser is in, in the chosen language's format.
 */
import { CSRF_HEADER, csrfResponse } from '@svc/shared';
import type { Page } from '@playwright/test';
import { expect, test } from './data-fixtures';
import { PersonDetailPage, PersonFormPage, signIn } from './data-pages';
import { DevicesPage } from './site-pages';
import { deviceHeartbeat, tag } from './support/admin-api';

/** UTC+14: no test machine's zone, so a time shown in it cannot be the browser's by chance. */
const ZONE = 'Pacific/Kiritimati';

async function setZone(page: Page, timeZone: string | null): Promise<void> {
  const csrf = csrfResponse.parse(await (await page.request.get('/api/auth/csrf')).json()).token;
  const reset = await page.request.put('/api/settings/time-zone', {
    data: { timeZone },
    headers: { [CSRF_HEADER]: csrf },
  });
  expect(reset.status()).toBe(200);
}
const resetZone = (page: Page) => setZone(page, null);

test('a superadmin sets the site time zone; times show in it, in English and in Chinese', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  const t = tag();
  const device = await adminApi.createDevice(`Clocked ${t}`);
  await deviceHeartbeat(page.request, site.serverURL, device);
  const seen = (await (await adminApi.request.get(`/api/devices/${device.id}`)).json()) as {
    lastHeartbeatAt: string;
  };

  await signIn(page, admin, '/settings');
  const section = page.getByRole('region', { name: 'Time zone' });
  await expect(section.getByTestId('settings-time-zone')).toContainText('the server’s time zone');
  try {
    await section.getByRole('combobox', { name: 'Show every time in' }).fill('Kiritimati');
    await page.getByRole('option', { name: ZONE }).click();
    await section.getByRole('button', { name: 'Save time zone' }).click();
    await expect(section.getByTestId('time-zone-message')).toContainText(
      `Times are now shown in ${ZONE}`,
    );

    await page.goto('/devices');
    await expect(new DevicesPage(page).heading).toBeVisible();
    // The row by its serial number, in either language (the table's name is translated).
    const row = page.locator(`[data-testid="device-row"][data-sn="${device.sn}"]`);
    const heartbeat = row.getByRole('cell').nth(4);
    const inZone = (iso: string, locale: string, options: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat(locale, { ...options, timeZone: ZONE }).format(new Date(iso));
    await expect(heartbeat).toHaveText(
      inZone(seen.lastHeartbeatAt, 'en-US', {
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }),
    );

    // In Chinese: "2026/11/28 14:05", still in the site's zone.
    await page.getByRole('button', { name: '简体中文' }).click();
    const expected = inZone(seen.lastHeartbeatAt, 'zh-CN', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    expect(expected).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/);
    await expect(heartbeat).toHaveText(expected);
    await page.getByRole('button', { name: 'English' }).click();
    await expect(heartbeat).toContainText(/AM|PM/);
  } finally {
    await resetZone(page);
  }
});

test('an operator reads the time zone but cannot change it', async ({ page, operator }) => {
  await signIn(page, operator, '/settings');
  const section = page.getByRole('region', { name: 'Time zone' });
  await expect(section.getByTestId('settings-time-zone')).toContainText('Times are shown in');
  await expect(section.getByRole('combobox', { name: 'Show every time in' })).toHaveCount(0);
  await expect(section).toContainText('only a super administrator can change it');
});

test('a validity given as dates is whole days in the site zone, shown as dates', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await signIn(page, admin, '/settings');
  await setZone(page, 'Asia/Shanghai');
  try {
    // Until 2026-03-31 is the end of that day in Shanghai, not UTC midnight (08:00 there).
    const person = await adminApi.createPerson({
      name: `Dated ${t}`,
      idNumber: `DT${t}`,
      validFrom: '2026-03-01',
      validUntil: '2026-03-31',
    });
    expect(person.validUntil).toBe('2026-03-31T15:59:59.999Z');
    await page.goto(`/people/${person.id}`);
    const detail = new PersonDetailPage(page);
    await expect(page.getByTestId('person-validity')).toHaveText('3/1/2026 – 3/31/2026');

    // The form shows the site zone's wall clock; saving another field keeps the whole days.
    await detail.edit.click();
    const form = new PersonFormPage(page);
    await expect(form.form.getByLabel('Valid until')).toHaveValue('2026-03-31T23:59');
    await expect(form.form.getByLabel('Valid from')).toHaveValue('2026-03-01T00:00');
    await form.name.fill(`Dated again ${t}`);
    await form.save.click();
    await expect(page.getByTestId('person-validity')).toHaveText('3/1/2026 – 3/31/2026');
    await page.getByRole('button', { name: '简体中文' }).click();
    await expect(page.getByTestId('person-validity')).toHaveText('2026/03/01 至 2026/03/31');
    await page.getByRole('button', { name: 'English' }).click();
  } finally {
    await resetZone(page);
  }
});
