import { deviceWithKey } from '@svc/shared';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { DevicesPage } from './site-pages';
import { deviceHeartbeat, tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('devices: register (key shown once, and it works), disable, move, rotate the key', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  // Two more dialogs than before (the question before, the secret kept until stored).
  test.setTimeout(60_000);
  const t = tag();
  const lobby = await adminApi.createSpace(`Lobby ${t}`);
  const annex = await adminApi.createSpace(`Annex ${t}`);
  const sn = `DEV-${t}`.toUpperCase();
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  await expect(devices.heading).toBeVisible();

  await devices.register.click();
  const form = devices.dialog;
  // Pasted with spaces around it (outside eyes: refused as "no spaces"): the serial is taken.
  await form.getByRole('textbox', { name: 'Serial number' }).fill(` ${sn} `);
  await expect(form.getByRole('textbox', { name: 'Serial number' })).not.toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await form.getByRole('textbox', { name: 'Name' }).fill(`Gate ${t}`);
  const address = form.getByRole('textbox', { name: 'Address' });
  await address.fill('not an address');
  await expect(address).toHaveAttribute('aria-invalid', 'true');
  await address.fill('http://127.0.0.1:9');
  await expect(address).not.toHaveAttribute('aria-invalid', 'true');
  await form.getByRole('combobox', { name: 'Space' }).click();
  await page.getByRole('option', { name: `Lobby ${t}`, exact: true }).click();
  await form.getByRole('button', { name: 'Register' }).click();

  await expect(devices.dialog.getByText('This is the only time the key')).toBeVisible();
  const key = (await devices.key.textContent()) ?? '';
  expect(key.length).toBeGreaterThan(20);
  await expect(devices.dialog.getByRole('button', { name: 'Copy key' })).toBeVisible();
  await devices.dialog.getByRole('button', { name: 'I have stored the key' }).click();
  await expect(devices.key).toHaveCount(0);
  const row = devices.row(sn);
  await expect(row.getByTestId('device-space')).toHaveText(`Lobby ${t}`);
  await expect(row).toContainText('Offline');

  // The key shown is the device's: a heartbeat with it makes the device online.
  await deviceHeartbeat(page.request, site.serverURL, { sn, key });
  await page.reload();
  await expect(row).toContainText('Online');

  await devices.action(`Gate ${t}`, 'Disable');
  await expect(row.getByTestId('device-disabled')).toBeVisible();
  await devices.action(`Gate ${t}`, 'Enable');
  await expect(row.getByTestId('device-disabled')).toHaveCount(0);

  await devices.action(`Gate ${t}`, 'Move to another space');
  await devices.dialog.getByRole('combobox', { name: 'Space' }).click();
  await page.getByRole('option', { name: annex.name, exact: true }).click();
  await devices.dialog.getByRole('button', { name: 'Move' }).click();
  await expect(row.getByTestId('device-space')).toHaveText(annex.name);
  expect(lobby.id).not.toBe(annex.id);

  await devices.action(`Gate ${t}`, 'Rotate key');
  await devices.confirmRotate(`Gate ${t}`);
  await expect(devices.key).toBeVisible();
  const rotated = (await devices.key.textContent()) ?? '';
  expect(rotated).not.toBe(key);
  await expectAccessible(page);
  await devices.dialog.getByRole('button', { name: 'I have stored the key' }).click();

  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('an operator sees the devices but no register or action controls', async ({
  page,
  operator,
  adminApi,
}) => {
  const device = await adminApi.createDevice(`Seen ${tag()}`);
  await signIn(page, operator, '/devices');
  const devices = new DevicesPage(page);
  await expect(devices.row(device.sn)).toBeVisible();
  await expect(devices.register).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Actions for/ })).toHaveCount(0);
  await expectAccessible(page);
});

test('the devices list shows each device’s last heartbeat and capacity', async ({
  page,
  operator,
  adminApi,
  site,
}) => {
  const t = tag();
  const quiet = await adminApi.createDevice(`Quiet ${t}`);
  const beating = await adminApi.createDevice(`Beating ${t}`);
  await adminApi.patch(`/api/devices/${beating.id}`, { capacity: 25_000 });
  await deviceHeartbeat(page.request, site.serverURL, beating);
  const seen = (await (await adminApi.request.get(`/api/devices/${beating.id}`)).json()) as {
    lastHeartbeatAt: string;
  };

  await signIn(page, operator, '/devices');
  const devices = new DevicesPage(page);
  // Columns: name, state (second: in view at 390 px), serial number, space, last heartbeat,
  // capacity.
  const cells = (sn: string) => devices.row(sn).getByRole('cell');
  await expect(cells(quiet.sn).nth(1)).toHaveText('Offline');
  await expect(cells(quiet.sn).nth(4)).toHaveText('Never');
  await expect(cells(quiet.sn).nth(5)).toHaveText('—');
  await expect(cells(beating.sn).nth(1)).toHaveText('Online');
  // The time as the browser formats it (its locale and time zone).
  const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), seen.lastHeartbeatAt);
  await expect(cells(beating.sn).nth(4)).toHaveText(shown);
  await expect(cells(beating.sn).nth(5)).toHaveText('25000');
});

test('at 390 px a device serial stays on one line, never broken at its hyphens', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const sn = `SIM-${t}-AB12-CD34-EF56`.toUpperCase();
  const device = deviceWithKey.parse(
    await adminApi.post('/api/devices', {
      sn,
      name: `Long serial ${t}`,
      baseUrl: 'http://127.0.0.1:9',
    }),
  );
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, admin, '/devices');
  const serial = page
    .locator(`[data-testid="device-row"][data-sn="${device.sn}"]`)
    .getByTestId('serial');
  await expect(serial).toHaveText(sn);
  // One line box: a serial wrapped at a hyphen has two.
  expect(await serial.evaluate((el) => el.getClientRects().length)).toBe(1);
  expect(await serial.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('nowrap');
});
