import type { APIRequestContext } from '@playwright/test';
import { expect, test, testWithSync } from './data-fixtures';
import { signIn } from './data-pages';
import { DashboardPage } from './site-pages';
import { deviceHeartbeat, postRecognition, tag } from './support/admin-api';
import { expectAccessible, expectPhoneLayout } from './support/checks';

async function total(adminApi: { request: APIRequestContext }, path: string) {
  const answer = await adminApi.request.get(path);
  expect(answer.ok()).toBe(true);
  return ((await answer.json()) as { total: number }).total;
}

test('dashboard: counts, sync backlog, warnings, and a new event arrives live', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  const t = tag();
  const space = await adminApi.createSpace(`Hall ${t}`);
  const online = await adminApi.createDevice(`Gate ${t}`, space.id);
  await adminApi.createDevice(`Spare ${t}`);
  await deviceHeartbeat(page.request, site.serverURL, online);
  // A person in the online device's space (whose sync tasks the worker, off here, plans).
  const person = await adminApi.createPerson({
    name: `Dash ${t}`,
    idNumber: `D-${t}`,
    spaceIds: [space.id],
  });

  const devices = (
    (await (await adminApi.request.get('/api/devices?pageSize=200')).json()) as {
      items: { online: boolean }[];
    }
  ).items;
  const people = await total(adminApi, '/api/people?pageSize=1');
  const pending = await total(adminApi, '/api/sync/tasks?state=pending&pageSize=1');
  const failed = await total(adminApi, '/api/sync/tasks?state=failed&pageSize=1');
  const heartbeat = (await (await adminApi.request.get('/api/heartbeat')).json()) as {
    warnings: string[];
  };

  await signIn(page, admin, '/');
  const dash = new DashboardPage(page);
  await expect(dash.heading).toBeVisible();
  await expect(dash.tile('dash-devices')).toContainText(
    `${devices.filter((d) => d.online).length} / ${devices.length}`,
  );
  // One of the devices is online, the spare never called: the first session's step waits.
  await expect(
    page.getByTestId('checklist-step').filter({ hasText: 'Devices online' }),
  ).toHaveAttribute('data-done', 'false');
  await expect(dash.tile('dash-people')).toContainText(people.toLocaleString('en-US'));
  await expect(page.getByTestId('dash-sync-pending')).toHaveText(String(pending));
  await expect(page.getByTestId('dash-sync-failed')).toHaveText(String(failed));
  await expect(dash.tile('dash-terminals')).toContainText('Enrollment: 0');
  await expect(
    dash.tile('dash-sync').getByRole('link', { name: 'Synchronization' }),
  ).toHaveAttribute('href', '/sync');
  for (const warning of heartbeat.warnings) {
    await expect(dash.warnings).toContainText(warning);
  }

  // A recognition from the device: on the dashboard without a reload.
  await expect(page.getByTestId('dash-live')).toHaveText('Live');
  const eventId = await postRecognition(page.request, site.serverURL, online, {
    personId: person.id,
  });
  const row = page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`);
  await expect(row).toContainText(`Dash ${t}`);
  await expect(row).toContainText(`Gate ${t}`);

  await expectAccessible(page);
  await expectPhoneLayout(page);
});

test('an operator sees the dashboard with no write controls', async ({ page, operator }) => {
  await signIn(page, operator, '/');
  const dash = new DashboardPage(page);
  await expect(dash.heading).toBeVisible();
  await expect(page.getByTestId('dash-sync-pending')).toHaveText(/^\d+$/);
  // Only reading: the one button on the page asks for the status again.
  await expect(page.getByRole('main').getByRole('button')).toHaveText(['Refresh status']);
  await expectAccessible(page);
});

testWithSync(
  'the undelivered-events tile counts events the panel refused, and links to the events',
  async ({ page, syncSite }) => {
    const { api, admin, stack } = syncSite;
    const t = tag();
    const device = await api.createDevice(`Gate ${t}`);
    // Before any panel route: recorded as not sent, which is not "undelivered".
    await postRecognition(page.request, stack.serverURL, device, { personId: null });
    // The panel route points where nothing listens: these two wait for another try.
    await api.post('/api/panel/route', {
      mode: 'local',
      url: 'http://127.0.0.1:9/api/recognition',
    });
    await postRecognition(page.request, stack.serverURL, device, { personId: null });
    await postRecognition(page.request, stack.serverURL, device, { personId: null });

    await signIn(page, admin, '/');
    const dash = new DashboardPage(page);
    await expect(dash.heading).toBeVisible();
    await expect(page.getByTestId('dash-events-pending')).toHaveText('2');
    await expect(page.getByTestId('dash-events-expired')).toHaveText('0');
    await dash.tile('dash-undelivered').getByRole('link', { name: 'Events' }).click();
    await expect(page).toHaveURL(/\/events$/);
    await expect(page.getByTestId('event-row')).toHaveCount(3);
  },
);
