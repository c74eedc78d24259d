import { expect, testWithSync as test } from './data-fixtures';
import { PersonDetailPage, signIn } from './data-pages';
import { deviceHeartbeat, tag } from './support/admin-api';

test("a person's page shows the synchronization state on each device, with the error", async ({
  page,
  syncSite,
}) => {
  const { api, admin, stack } = syncSite;
  const t = tag();
  const space = await api.createSpace(`Annex ${t}`);
  const device = await api.createDevice(`Door ${t}`, space.id);
  // Without a photo the task waits for one (not failed), without trying the device.
  const person = await api.createPerson({
    name: `Synced ${t}`,
    idNumber: `SY${t}`,
    spaceIds: [space.id],
  });
  await deviceHeartbeat(page.request, stack.serverURL, device);

  await signIn(page, admin, `/people/${person.id}`);
  const detail = new PersonDetailPage(page);
  await expect(detail.heading(person.name)).toBeVisible();
  await expect(async () => {
    await detail.refreshSync.click();
    await expect(detail.syncRows).toHaveCount(1, { timeout: 1_000 });
    await expect(detail.syncRows.getByTestId('sync-state')).toHaveText('waiting for a photo', {
      timeout: 1_000,
    });
  }).toPass({ timeout: 20_000 });
  const row = detail.syncRows.first();
  await expect(row).toContainText(device.name);
  // A state, not a failure: the reason of the last failure stays empty.
  await expect(row.getByTestId('sync-message')).toHaveText('—');
  await expect(row.getByTestId('sync-attempts')).toHaveText(/^\d+$/);

  // A photo arrives: the worker pushes to the device's address, where nothing listens. The
  // stream's `sync` message brings the new state to the open page, with no Refresh and no reload.
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations++;
  });
  const png = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } });
  await api.putPhoto(person.id, png);
  await expect(row.getByTestId('sync-message')).toContainText('connection refused', {
    timeout: 20_000,
  });
  await expect(row.getByTestId('sync-attempts')).toHaveText(/^[1-9]\d*$/);
  expect(navigations).toBe(0);
});
