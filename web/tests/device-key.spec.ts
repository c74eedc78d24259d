import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { question } from './safety-pages';
import { DevicesPage } from './site-pages';
import { deviceHeartbeat, tag } from './support/admin-api';
import { expectAccessible, expectPhoneLayout } from './support/checks';

test('rotate key asks first, and a device calling with the old key shows "Key refused since"', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  test.setTimeout(90_000);
  const t = tag();
  const device = await adminApi.createDevice(`Turnstile ${t}`);
  await deviceHeartbeat(page.request, site.serverURL, device);
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  const row = devices.row(device.sn);
  await expect(row).toContainText('Online');

  // Asked first, naming the consequence; Cancel changes nothing: the key still works.
  await devices.action(`Turnstile ${t}`, 'Rotate key');
  const ask = question(page, `Rotate the key of Turnstile ${t}?`);
  await expect(ask).toContainText('stops recognizing and synchronizing');
  await expect(ask).toContainText('until the new key is entered on the device');
  await expectAccessible(page);
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(ask).toHaveCount(0);
  await expect(devices.key).toHaveCount(0);
  await deviceHeartbeat(page.request, site.serverURL, device);

  await devices.action(`Turnstile ${t}`, 'Rotate key');
  await devices.confirmRotate(`Turnstile ${t}`);
  const rotated = ((await devices.key.textContent()) ?? '').trim();
  await page.getByRole('button', { name: 'I have stored the key' }).click();

  // The device still calls with its old key: refused, and the site says since when.
  const refused = await page.request.post(`${site.serverURL}/api/device/heartbeat`, {
    headers: { authorization: `Bearer ${device.key}` },
    data: { sn: device.sn },
  });
  expect(refused.status()).toBe(401);
  await page.reload();
  await expect(row.getByTestId('device-key-refused')).toHaveText(
    /^Key refused since (\d{1,2} \w+ )?\d{2}:\d{2}/,
  );
  await expectAccessible(page);
  await expectPhoneLayout(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await row.getByRole('link', { name: `Turnstile ${t}` }).click();
  await expect(page.getByTestId('device-key-refused')).toContainText('Key refused since');
  await expectAccessible(page);

  // The new key entered on the device: accepted, and the warning is gone.
  await deviceHeartbeat(page.request, site.serverURL, { sn: device.sn, key: rotated });
  await page.reload();
  await expect(page.getByRole('heading', { name: `Turnstile ${t}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId('device-key-refused')).toHaveCount(0);
});

test('deleting a space and disabling an administrator ask first', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  await adminApi.post('/api/administrators', { username: `keep-${t}`, role: 'operator' });
  await signIn(page, admin, '/administrators');
  await page.getByRole('button', { name: `Actions for keep-${t}` }).click();
  await page.getByRole('menuitem', { name: 'Disable (ends sessions)' }).click();
  const ask = question(page, `Disable keep-${t}?`);
  await expect(ask).toContainText('signed out everywhere');
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect(ask).toHaveCount(0);
  const row = page.locator(`[data-testid="administrator-row"][data-username="keep-${t}"]`);
  await expect(row.getByTestId('administrator-state')).toContainText('Active');
});
