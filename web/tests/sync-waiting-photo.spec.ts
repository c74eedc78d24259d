/**
 * Issue 30 item 9: a person without a photo is no synchronization failure. Their task shows
 * "waiting for a photo", apart from the failed ones, with no Retry; the dashboard and /sync
 * count alike; retrying a device's failed tasks says what it did and leaves the waiting alone.
 * Item 16 too: at 390 px the state and the reason are the first columns.
 */
import { expect, testWithSync as test } from './data-fixtures';
import { signIn } from './data-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectPhoneLayout } from './support/checks';
import { DevicesPage } from './site-pages';
import { SyncPage, simDevice } from './sync-pages';

test('a person without a photo waits, is not failed, has no Retry; counts agree', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(120_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  const { space, device, sim } = await simDevice(api, stack.serverURL, t);
  try {
    // Every push gets bytes that are no person state: a real failure, at once.
    await sim.setFaults({ answerBytes: 16 });

    await signIn(page, admin, '/sync');
    const sync = new SyncPage(page);
    await expect(sync.heading).toBeVisible();
    const ada = await api.createPerson({
      name: `Ada ${t}`,
      idNumber: `A${t}`,
      spaceIds: [space.id],
    });
    await api.putPhoto(
      ada.id,
      await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } }),
    );
    const bo = await api.createPerson({ name: `Bo ${t}`, idNumber: `B${t}`, spaceIds: [space.id] });

    const failed = sync.task(ada.id);
    const waiting = sync.task(bo.id);
    await expect(failed.getByTestId('task-state')).toHaveText('failed', { timeout: 30_000 });
    await expect(waiting.getByTestId('task-state')).toHaveText('waiting for a photo', {
      timeout: 30_000,
    });
    // A state, not a failure: the state column says it, the failure reason stays empty.
    await expect(waiting.getByTestId('task-error')).toHaveText('—');
    await expect(failed.getByTestId('task-error')).not.toHaveText('—');
    await expect(waiting.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
    await expect(failed.getByRole('button', { name: /^Retry/ })).toBeVisible();
    await expect(sync.count('failed')).toHaveText('1');
    await expect(sync.count('waiting')).toHaveText('1');
    await expectAccessible(page);
    await page.screenshot({ path: test.info().outputPath('sync-1280.png'), fullPage: true });

    // The card shows only those waiting.
    await page.getByRole('button', { name: /^waiting for a photo 1/i }).click();
    await expect(page).toHaveURL(/state=failed/);
    await expect(page).toHaveURL(/reason=no_photo/);
    await expect(sync.task(bo.id)).toBeVisible();
    await expect(sync.task(ada.id)).toHaveCount(0);

    // The dashboard counts as /sync does.
    await page.goto('/');
    await expect(page.getByTestId('dash-sync-failed')).toHaveText('1');
    await expect(page.getByTestId('dash-sync-waiting')).toHaveText('1');

    // The people list, the devices list and the device's page count the waiting one apart too.
    await page.goto('/people');
    const person = (name: string) => page.getByTestId('person-row').filter({ hasText: name });
    await expect(person(`Bo ${t}`).getByTestId('person-sync')).toHaveText(
      'Waiting for a photo on 1 of 1 device',
    );
    await expect(person(`Ada ${t}`).getByTestId('person-sync')).toHaveText(
      'Failed on 1 of 1 device',
    );
    await expectAccessible(page);
    const devices = new DevicesPage(page);
    await page.goto('/devices');
    const counts = devices.row(device.sn);
    await expect(counts.getByTestId('sync-count-failed')).toHaveText('1 failed');
    await expect(counts.getByTestId('sync-count-waitingPhoto')).toHaveText('1 waiting for a photo');
    await page.goto(`/devices/${device.id}`);
    await expect(page.getByTestId('count-failed')).toHaveText('failed: 1');
    await expect(page.getByTestId('count-waitingPhoto')).toHaveText('waiting for a photo: 1');
    await expectAccessible(page);

    // Retry all failed of the device: it says what it did, and only the failed one went again.
    await sync.goto(`?device=${device.id}`);
    await sync.retryAllOf(`Door ${t}`).click();
    await expect(sync.notice).toHaveText(`1 failed task of Door ${t} will be tried again now.`);
    await expect(sync.task(bo.id).getByTestId('task-state')).toHaveText('waiting for a photo');
    await expectPhoneLayout(page);
    // Issue 30 item 16: at 390 px the state and the reason come first, in view, and the table
    // says that it scrolls for the rest.
    await expect(page.getByTestId('scroll-hint')).toBeVisible();
    await expect(sync.table.getByRole('columnheader').first()).toHaveText('State');
    for (const row of [sync.task(ada.id), sync.task(bo.id)]) {
      // Sideways only: the rows may be below the fold.
      const state = await row.getByTestId('task-state').boundingBox();
      expect((state?.x ?? 999) + (state?.width ?? 0)).toBeLessThanOrEqual(390);
      const reason = await row.getByTestId('task-error').boundingBox();
      expect(reason?.x ?? 999).toBeLessThan(390 - 80);
    }
    await page.screenshot({ path: test.info().outputPath('sync-390.png'), fullPage: true });
  } finally {
    await sim.stop();
  }
});
