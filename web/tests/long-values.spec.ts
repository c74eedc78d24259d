import { expect, test, testWithSync } from './data-fixtures';
import { signIn } from './data-pages';
import { postRecognition, tag } from './support/admin-api';
import { expectPhoneLayout } from './support/checks';
import { expectFitsAt1280, expectWrapped, unbroken } from './support/wrapping';

/**
 * Issue 30 items 11 and 16: the longest values the schemas allow (a 64-character ID number, a
 * 128-character name, both without a space to break at) wrap inside their own box instead of
 * running over the next column or card, at 1280 and at 390 px.
 */

test('the longest name and ID number wrap in the people list, the person page and devices', async ({
  page,
  admin,
  adminApi,
}) => {
  // Three pages, each measured at 1280 and at 390 px.
  test.setTimeout(60_000);
  const t = tag();
  const name = `Long${t}`.padEnd(128, 'n');
  const idNumber = `ID${t}`.padEnd(64, '7');
  const person = await adminApi.createPerson({
    name,
    idNumber,
    phone: null,
    notes: null,
    spaceIds: [],
    validFrom: null,
    validUntil: null,
    enabled: true,
  });
  const deviceName = `Gate${t}`.padEnd(128, 'g');
  await adminApi.createDevice(deviceName);

  await signIn(page, admin, `/people?q=Long${t}`);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/people?q=Long${t}`);
    const main = page.getByRole('main');
    await expectWrapped(main, [name, idNumber]);
    await page.screenshot({ path: test.info().outputPath(`people-${width}.png`), fullPage: true });

    await page.goto(`/people/${person.id}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectWrapped(main, [name, idNumber]);
    await page.screenshot({ path: test.info().outputPath(`person-${width}.png`), fullPage: true });

    await page.goto('/devices');
    await expectWrapped(main, [deviceName]);
    // Item 16: the state is the second column, in view at 390 px; the table says it scrolls.
    // Other tests of this worker's stack add devices, so the row may start below the fold:
    // brought up by its name (the first column), its state must then be in view beside it.
    const row = page.getByTestId('device-row').filter({ hasText: deviceName });
    await row.getByText(deviceName).scrollIntoViewIfNeeded();
    await expect(row.getByText('Offline')).toBeInViewport();
    await expect(page.getByTestId('scroll-hint')).toBeVisible({ visible: width < 768 });
    await page.screenshot({ path: test.info().outputPath(`devices-${width}.png`), fullPage: true });
  }
});

test('60-character unbroken names keep the devices and events tables inside the page', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  const t = tag();
  const space = await adminApi.createSpace(unbroken(`Wing${t}`, 'w'));
  const person = await adminApi.createPerson({
    name: unbroken(`Pers${t}`, 'p'),
    idNumber: `LN${t}`,
  });
  const device = await adminApi.createDevice(unbroken(`Gate${t}`, 'g'), space.id);
  await postRecognition(page.request, site.serverURL, device, { personId: person.id });

  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, admin, '/devices');
  const devices = page.getByRole('table', { name: 'Devices' });
  const row = devices.getByTestId('device-row').filter({ hasText: device.name });
  await expect(row.getByTestId('device-space')).toHaveText(space.name);
  await expectWrapped(devices, [device.name, space.name]);
  await expectFitsAt1280(page, devices);
  await page.screenshot({ path: test.info().outputPath('devices-1280.png'), fullPage: true });

  await page.goto(`/events?device=${device.id}`);
  const events = page.getByRole('table', { name: 'Recognition events' });
  await expect(events.getByTestId('event-person').first()).toHaveText(person.name);
  await expectWrapped(events, [person.name, device.name, space.name]);
  await expectFitsAt1280(page, events);

  // At 390 px the phone layout stands: the table scrolls inside its box and says so.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/devices');
  await expect(row.getByTestId('device-space')).toHaveText(space.name);
  await expectWrapped(devices, [device.name, space.name]);
  await expect(page.getByTestId('scroll-hint')).toBeVisible();
  await expectPhoneLayout(page);
});

testWithSync(
  'a 60-character unbroken person name keeps the task tables inside the page',
  async ({ page, syncSite }) => {
    const { api, admin } = syncSite;
    const t = tag();
    const space = await api.createSpace(`Wing ${t}`);
    const person = await api.createPerson({
      name: unbroken(`Pers${t}`, 'p'),
      idNumber: `LT${t}`,
      spaceIds: [space.id],
    });
    // Nothing listens at the device's address: its task fails, and stays in the list.
    const device = await api.createDevice(`Door ${t}`, space.id);

    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page, admin, `/devices/${device.id}`);
    const tasks = page.getByRole('table', { name: 'Tasks' });
    await expect(tasks.getByRole('link', { name: person.name })).toBeVisible({ timeout: 20_000 });
    await expectWrapped(tasks, [person.name]);
    await expectFitsAt1280(page, tasks);

    await page.goto(`/sync?device=${device.id}`);
    await expect(tasks.getByRole('link', { name: person.name })).toBeVisible();
    await expectWrapped(tasks, [person.name]);
    await expectFitsAt1280(page, tasks);
  },
);
