import { expect, test } from './data-fixtures';
import { testWithSync } from './data-fixtures';
import { signIn } from './data-pages';
import { DevicePage } from './site-pages';
import { deviceHeartbeat, tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

testWithSync('device page: its tasks live, and retry failed', async ({ page, syncSite }) => {
  const { api, admin, stack } = syncSite;
  const t = tag();
  const space = await api.createSpace(`Wing ${t}`);
  const device = await api.createDevice(`Door ${t}`, space.id);
  await deviceHeartbeat(page.request, stack.serverURL, device);

  await signIn(page, admin, '/devices');
  await page.getByRole('link', { name: `Door ${t}`, exact: true }).click();
  const detail = new DevicePage(page, `Door ${t}`);
  await expect(detail.heading).toBeVisible();
  await expect(detail.reconciliation).toHaveText('Never reconciled.');
  await expect(page.getByText('No tasks for this device yet.')).toBeVisible();

  // Without a photo the worker fails the task at once; the stream brings it to the open page.
  const person = await api.createPerson({
    name: `Tasked ${t}`,
    idNumber: `TK${t}`,
    spaceIds: [space.id],
  });
  const row = detail.task(person.id);
  await expect(row.getByTestId('task-state')).toHaveText('failed', { timeout: 20_000 });
  await expect(row.getByTestId('task-error')).toContainText('has no photo yet');
  await expect(detail.count('failed')).toContainText('1');

  await detail.retryFailed.click();
  await expect(detail.notice).toHaveText('1 failed task(s) will be tried again now.');

  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('device page: reconcile now, followed to its result', async ({ page, admin, adminApi }) => {
  const device = await adminApi.createDevice(`Checked ${tag()}`);
  await signIn(page, admin, `/devices/${device.id}`);
  const detail = new DevicePage(page, device.name);
  await expect(detail.reconciliation).toHaveText('Never reconciled.');
  // The device holds nobody: the read-back ends at once and the page follows it to the end.
  await detail.reconcileNow.click();
  await expect(detail.notice).toContainText(/Reconciliation started|already running/);
  await expect(detail.reconciliation).toContainText(/Last reconciliation .*: 0 checked/);
  await expectAccessible(page);
});

test('an operator sees a device page without retry or reconcile', async ({
  page,
  operator,
  adminApi,
}) => {
  const device = await adminApi.createDevice(`Viewed ${tag()}`);
  await signIn(page, operator, `/devices/${device.id}`);
  const detail = new DevicePage(page, device.name);
  await expect(detail.heading).toBeVisible();
  await expect(detail.reconciliation).toHaveText('Never reconciled.');
  await expect(detail.retryFailed).toHaveCount(0);
  await expect(detail.reconcileNow).toHaveCount(0);
  await expectAccessible(page);
});
