import { expect, test } from './data-fixtures';
import { EventsListPage, signIn } from './data-pages';
import { DevicePage } from './site-pages';
import { postRecognition, tag } from './support/admin-api';

/**
 * Issue 32, item 6: a device dating its events 2099 does not put them on top of the list; the
 * event is flagged with what the device said, and the device's page shows its drift.
 */
test("a device clock years ahead: the event is flagged and the device's drift shows", async ({
  page,
  adminApi,
  admin,
  site,
}) => {
  const t = tag();
  const device = await adminApi.createDevice(`Skewed ${t}`);
  const honest = await adminApi.createDevice(`Honest ${t}`);
  const far = await postRecognition(page.request, site.serverURL, device, {
    personId: null,
    time: new Date('2099-01-01T00:00:00.000Z'),
  });
  const next = await postRecognition(page.request, site.serverURL, honest, { personId: null });

  await signIn(page, admin, '/events');
  const events = new EventsListPage(page);
  await expect(events.row(next)).toBeVisible();
  // Dated by the service's receive time: the later event is first, not the one "from 2099".
  await expect(events.rows.first()).toHaveAttribute('data-event-id', next);
  await expect(events.reportedTime(far)).toContainText('2099');
  await expect(events.reportedTime(next)).toHaveCount(0);

  await page.goto(`/devices/${device.id}`);
  const detail = new DevicePage(page, device.name);
  await expect(detail.heading).toBeVisible();
  await expect(detail.clock).toContainText("ahead of the central service's");
  await expect(detail.clockWarning).toContainText(`The clock of device ${device.sn}`);
});
