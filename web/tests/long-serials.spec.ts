import type { Page } from '@playwright/test';
import { deviceWithKey } from '@svc/shared';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { SecretDialog } from './safety-pages';
import { DevicesPage } from './site-pages';
import { tag, type AdminApi } from './support/admin-api';
import { expectPhoneLayout } from './support/checks';
import { expectFitsAt1280, expectWrapped, overflowOf, unbroken } from './support/wrapping';

/**
 * Outside eyes, after long names were made to wrap: a 60-character serial number, a space's
 * name and a person's name, none with a space to break at, still pushed the Spaces page, the
 * people and devices lists, the device key dialog and the device page past the window.
 */

/** A device with a 60-character serial (the schema allows 64), in `spaceId`. */
async function longSerialDevice(adminApi: AdminApi, t: string, spaceId: string) {
  return deviceWithKey.parse(
    await adminApi.post('/api/devices', {
      sn: unbroken(`SN${t}`, '9').toUpperCase(),
      name: unbroken(`Gate${t}`, 'g'),
      baseUrl: 'http://127.0.0.1:9',
      spaceId,
    }),
  );
}

/** The page itself never scrolls sideways. */
async function expectPageFits(page: Page, width: number) {
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(pageWidth, 'the page is wider than the window').toBeLessThanOrEqual(width);
}

/** A space, a person in it and a device in it, each with a long unbroken value. */
async function longValues(adminApi: AdminApi) {
  const t = tag();
  const space = await adminApi.createSpace(unbroken(`Hall${t}`, 'h'));
  const person = await adminApi.createPerson({
    name: unbroken(`Pers${t}`, 'p'),
    idNumber: `LS${t}`,
    spaceIds: [space.id],
  });
  const device = await longSerialDevice(adminApi, t, space.id);
  return { t, space, person, device };
}

test('item 1: the Spaces page fits at 1280 and 390 px with long names and a long serial', async ({
  page,
  admin,
  adminApi,
}) => {
  const { space, person, device } = await longValues(adminApi);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, admin, `/spaces?space=${space.id}`);
  const section = page.getByRole('region', { name: `Space ${space.name}` });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await expect(section.getByRole('link', { name: person.name })).toBeVisible();
    await expectWrapped(section, [space.name, person.name, device.name, device.sn]);
    await expectPageFits(page, width);
    await page.screenshot({ path: test.info().outputPath(`spaces-${width}.png`), fullPage: true });
  }
  await expectPhoneLayout(page);
});

test('item 2: long space names and serials wrap in the people and devices lists at 1280', async ({
  page,
  admin,
  adminApi,
}) => {
  const { t, space, person, device } = await longValues(adminApi);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, admin, `/people?q=Pers${t}`);
  const people = page.getByRole('table', { name: 'People' });
  await expectWrapped(people, [person.name, space.name]);
  await expectFitsAt1280(page, people);
  await page.goto('/devices');
  const devices = new DevicesPage(page);
  await expectWrapped(devices.row(device.sn), [device.name, device.sn, space.name]);
  await expectFitsAt1280(page, devices.table);
  await page.screenshot({ path: test.info().outputPath('devices-1280.png'), fullPage: true });
});

test('item 3: a long serial wraps in the key dialog, and its device page fits at 390', async ({
  page,
  admin,
  adminApi,
}) => {
  const { device } = await longValues(adminApi);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  await devices.action(device.name, 'Rotate key');
  await devices.confirmRotate(device.name);
  const key = new SecretDialog(page, 'Device key', 'device-key');
  await expect(key.dialog).toContainText(`the key of ${device.sn} is shown`);
  expect(await overflowOf(key.dialog, device.sn)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('key-1280.png') });
  await key.dialog.getByRole('button', { name: 'I have stored the key' }).click();
  await expect(key.dialog).toHaveCount(0);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/devices/${device.id}`);
  await expect(page.getByRole('heading', { level: 1, name: device.name })).toBeVisible();
  await expect(page.getByText(device.sn, { exact: false }).first()).toBeVisible();
  await expectPhoneLayout(page);
  await page.screenshot({ path: test.info().outputPath('device-390.png'), fullPage: true });
});
