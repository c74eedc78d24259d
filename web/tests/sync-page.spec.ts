/**
 * /sync, a person's retry and erasure, and an event's page, against the real server with its
 * synchronization worker and a simulated recognition device (tools/sim) whose faults the test
 * sets and clears.
 */
import { startTerminal } from '@svc/sim';
import type { Page } from '@playwright/test';
import { expect, test as readOnlyTest, testWithSync as test } from './data-fixtures';
import { PersonDetailPage, signIn } from './data-pages';
import { AuditPage } from './review-pages';
import { postRecognition, tag, type AdminApi } from './support/admin-api';
import { expectAccessible, expectPhoneLayout } from './support/checks';
import { ErasurePage, EventPage, SyncPage, simDevice } from './sync-pages';

async function personWithPhoto(api: AdminApi, page: Page, name: string, spaceId: string) {
  const person = await api.createPerson({ name, idNumber: `P${tag()}`, spaceIds: [spaceId] });
  await api.putPhoto(
    person.id,
    await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 64 } }),
  );
  return person;
}

/** Set once the page is open: still set later means the page was never reloaded. */
const notReloaded = async (page: Page) =>
  expect(await page.evaluate(() => (window as { __kept?: boolean }).__kept)).toBe(true);

test('a failing device on /sync, live; retry one and retry all after the fault clears; audited', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(120_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  const { space, device, sim } = await simDevice(api, stack.serverURL, t);
  try {
    // The device answers every push with bytes that are no person state: the push fails at once.
    await sim.setFaults({ answerBytes: 16 });
    await signIn(page, admin, '/sync');
    const sync = new SyncPage(page);
    await expect(sync.heading).toBeVisible();
    await expect(sync.live).toHaveText('Live');
    await sync.filter('Device', `Door ${t} (${device.sn})`);
    await expect(page).toHaveURL(new RegExp(`device=${device.id}`));
    await expect(page.getByTestId('sync-empty')).toBeVisible();
    await page.evaluate(() => Object.assign(window, { __kept: true }));

    // From here on everything arrives through the stream: no reload, no click.
    const ada = await personWithPhoto(api, page, `Ada ${t}`, space.id);
    const row = sync.task(ada.id);
    await expect(row.getByTestId('task-state')).toHaveText('failed', { timeout: 30_000 });
    await expect(row.getByTestId('task-error')).toContainText(
      `device ${device.sn} answered a person state this service does not understand`,
    );
    await expect(row.getByTestId('task-attempts')).toHaveText('1');
    await expect(row).toContainText(`Ada ${t}`);
    await expect(sync.count('failed')).toHaveText('1');
    await expect(sync.attemptsHelp).toContainText('a success does not add one');
    await notReloaded(page);

    // The fault clears; Retry pushes again and the row follows to succeeded.
    await sim.setFaults({});
    await row.getByRole('button', { name: /^Retry/ }).click();
    await expect(sync.notice).toHaveText(`Ada ${t} on ${device.sn} will be tried again now.`);
    await expect(row.getByTestId('task-state')).toHaveText('succeeded', { timeout: 30_000 });
    // The failed attempt is forgotten by the retry: the count starts over.
    await expect(row.getByTestId('task-attempts')).toHaveText('0');
    await expect(row.getByTestId('task-error')).toHaveText('—');
    await expect(sync.count('failed')).toHaveText('0');
    expect(sim.person(ada.id)).toBeDefined();

    // Retry all failed of the device: two more people fail, the fault clears, one click.
    await sim.setFaults({ answerBytes: 16 });
    const bob = await personWithPhoto(api, page, `Bob ${t}`, space.id);
    const cy = await personWithPhoto(api, page, `Cy ${t}`, space.id);
    // Failed by the fault, not by the moment between the person and their photo (no_photo).
    for (const person of [bob, cy]) {
      await expect(sync.task(person.id).getByTestId('task-error')).toContainText(
        'answered a person state this service does not understand',
        { timeout: 30_000 },
      );
    }
    await expect(sync.count('failed')).toHaveText('2');
    await sim.setFaults({});
    await sync.retryAllOf(`Door ${t}`).click();
    await expect(sync.notice).toHaveText(`2 failed tasks of Door ${t} will be tried again now.`);
    for (const person of [bob, cy]) {
      await expect(sync.task(person.id).getByTestId('task-state')).toHaveText('succeeded', {
        timeout: 30_000,
      });
      expect(sim.person(person.id)).toBeDefined();
    }
    await expect(sync.count('succeeded')).toHaveText('3');
    await notReloaded(page);

    // The state filter: only failed tasks (none now).
    await sync.filter('State', 'failed');
    await expect(page).toHaveURL(/state=failed/);
    await expect(page.getByTestId('sync-empty')).toBeVisible();

    await expectAccessible(page);
    await expectPhoneLayout(page);

    // The audit log finds both retries, by action.
    await page.setViewportSize({ width: 1280, height: 800 });
    const audit = new AuditPage(page);
    await audit.goto();
    await audit.search({ Action: 'sync.retry' });
    const retries = audit.table.locator('[data-testid="audit-row"][data-action="sync.retry"]');
    await expect(retries).toHaveCount(1);
    // The target's type in words, not its code.
    await expect(retries).toContainText('sync task');
    await expect(retries).not.toContainText('sync_task');
    const retriedAll = audit.table.locator(
      '[data-testid="audit-row"][data-action="sync.retry_failed"]',
    );
    await expect(retriedAll).toHaveCount(1);
    await expect(retriedAll).toContainText(device.id);

    // The devices list counts the device's tasks by state.
    await page.goto('/devices');
    const listed = page.locator(`[data-testid="device-row"][data-sn="${device.sn}"]`);
    await expect(listed.getByTestId('device-sync')).toHaveText('3 succeeded');
  } finally {
    await sim.stop();
  }
});

test('delete a person: the confirmation, the erasure followed to done on the device; audited', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(120_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  const { space, sim } = await simDevice(api, stack.serverURL, t);
  try {
    const eve = await personWithPhoto(api, page, `Eve ${t}`, space.id);
    await signIn(page, admin, `/people/${eve.id}`);
    const detail = new PersonDetailPage(page);
    await expect(detail.heading(eve.name)).toBeVisible();
    await expect(detail.syncRows.first().getByTestId('sync-state')).toHaveText('succeeded', {
      timeout: 30_000,
    });
    expect(sim.person(eve.id)).toBeDefined();
    await expect(page.getByTestId('attempts-help')).toContainText('Failed attempts');
    await expect(detail.syncRows.first().getByTestId('sync-next')).toHaveText('—');
    await expectAccessible(page);
    await expectPhoneLayout(page);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${eve.name}?` });
    await expect(dialog).toContainText('will be erased from every device that holds them');
    await dialog.getByRole('button', { name: 'Delete and erase from devices' }).click();

    const erasure = new ErasurePage(page);
    await expect(erasure.heading).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/people/${eve.id}/erasure$`));
    await expect(erasure.status).toContainText('Erasure done', { timeout: 30_000 });
    await expect(erasure.status).toContainText('Erased from every device (1).');
    await expect(page.getByRole('table', { name: 'Tasks' })).toContainText('Deleted person');
    expect(sim.person(eve.id)).toBeUndefined();
    await expectAccessible(page);
    await expectPhoneLayout(page);

    await page.setViewportSize({ width: 1280, height: 800 });
    const audit = new AuditPage(page);
    await audit.goto();
    await audit.search({ Action: 'person.delete', 'Object ID': eve.id });
    await expect(audit.rows).toHaveCount(1);
    await expect(audit.rows.first()).toHaveAttribute('data-action', 'person.delete');
  } finally {
    await sim.stop();
  }
});

test('person page: a failing device with its reason, next attempt and a retry per device', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(90_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  const { space, sim } = await simDevice(api, stack.serverURL, t);
  try {
    // HTTP 500: worth trying again, so the task waits for its next attempt (backing off).
    await sim.setFaults({ status500: true });
    const fay = await personWithPhoto(api, page, `Fay ${t}`, space.id);
    await signIn(page, admin, `/people/${fay.id}`);
    const detail = new PersonDetailPage(page);
    const row = detail.syncRows.first();
    await expect(row.getByTestId('sync-message')).toContainText('answered HTTP 500', {
      timeout: 30_000,
    });
    await expect(row.getByTestId('sync-state')).toHaveText(/pending|running/);
    await expect(row.getByTestId('sync-attempts')).toHaveText(/^[1-7]$/);
    await sim.setFaults({});
    await row.getByRole('button', { name: `Retry on Door ${t}` }).click();
    await expect(row.getByTestId('sync-state')).toHaveText('succeeded', { timeout: 30_000 });
    await expect(row.getByTestId('sync-message')).toHaveText('—');

    // The people list: photo present, up to date on the one device.
    await page.goto(`/people?q=${encodeURIComponent(fay.name)}`);
    const listed = page.getByTestId('person-row').filter({ hasText: fay.name });
    await expect(listed.getByTestId('person-photo')).toHaveText('Yes');
    await expect(listed.getByTestId('person-sync')).toHaveText('Up to date on 1 device');
    await expectAccessible(page);
    await expectPhoneLayout(page);
  } finally {
    await sim.stop();
  }
});

test('an event page: the snapshot in a viewer, each failed try and its reason, then delivered', async ({
  page,
  syncSite,
}) => {
  test.setTimeout(90_000);
  const { api, admin, stack } = syncSite;
  const t = tag();
  // The panel route points where nothing listens: the delivery fails and is tried again.
  await api.post('/api/panel/route', { mode: 'local', url: 'http://127.0.0.1:9/api/recognition' });
  const device = await api.createDevice(`Gate ${t}`);
  const snapshot = await page.screenshot({
    type: 'jpeg',
    quality: 60,
    clip: { x: 0, y: 0, width: 48, height: 48 },
  });
  const id = await postRecognition(page.request, stack.serverURL, device, {
    personId: null,
    snapshot,
  });

  await signIn(page, admin, '/events');
  const row = page.locator(`[data-testid="event-row"][data-event-id="${id}"]`);
  await expect(row.getByTestId('event-delivery-error')).toContainText(
    /the panel could not be reached/i,
    {
      timeout: 30_000,
    },
  );
  await row.getByRole('link', { name: /^Snapshot of event/ }).click();
  await expect(page).toHaveURL(new RegExp(`/events/${id}$`));
  const event = new EventPage(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Unknown person at Gate ${t}`);
  await expect(event.delivery).toHaveText('Pending');
  await expect(event.history).toContainText(/\d+ failed tr(y|ies)/);
  // Each failed try on its own row: its number, its time and its reason, inline.
  const first = event.failedTries.first();
  await expect(first.getByRole('cell').nth(0)).toHaveText('1');
  await expect(first.getByRole('cell').nth(1)).toHaveText(/\d{2}:\d{2}/);
  await expect(first.getByRole('cell').nth(2)).toContainText(/the panel could not be reached/i);
  await expect(event.history).toContainText('Next try');
  await expect
    .poll(() => event.snapshot.evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBe(48);
  await event.viewFullSize.click();
  await expect(event.dialog.getByRole('img', { name: /^Snapshot of the event/ })).toBeVisible();
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect(event.dialog).toHaveCount(0);
  await expectPhoneLayout(page);

  // The panel comes back: the next try delivers, live; the failed tries stay listed above it.
  const display = await startTerminal({
    id: `DSP-${t}`,
    kind: 'display',
    bindAddress: '127.0.0.1',
    httpPort: 0,
    discoveryPort: 9,
    broadcastAddresses: ['127.0.0.1'],
    announceIntervalMs: 0,
    checkinIntervalMs: 0,
    listenForProbes: false,
  });
  try {
    await api.post('/api/panel/route', { mode: 'local', url: `${display.url}/api/recognition` });
    await expect(event.delivery).toHaveText('Delivered', { timeout: 45_000 });
    await expect(event.history.getByText(/^Delivered at /)).toBeVisible();
    const failed = await event.failedTries.count();
    expect(failed).toBeGreaterThanOrEqual(1);
    await expect(event.history).toContainText(`${failed} failed tr`);
    await expect(event.failedTries.last().getByRole('cell').nth(0)).toHaveText(String(failed));
    await expect(event.history).not.toContainText('Next try');
  } finally {
    await display.stop();
  }
});

readOnlyTest(
  'an operator reads /sync without retry controls',
  async ({ page, operator, adminApi }) => {
    const device = await adminApi.createDevice(`Watched ${tag()}`);
    await signIn(page, operator, `/sync?device=${device.id}`);
    const sync = new SyncPage(page);
    await expect(sync.heading).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Device', exact: true })).toHaveValue(
      `${device.name} (${device.sn})`,
    );
    await expect(page.getByTestId('sync-empty')).toBeVisible();
    await expect(sync.count('failed')).toHaveText('0');
    await expect(sync.retryAllOf(device.name)).toHaveCount(0);
    await expectAccessible(page);
  },
);
