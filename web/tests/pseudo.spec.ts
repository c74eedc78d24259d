/**
 * Issue 34: the site in the pseudo-locale (`?pseudo`: every catalog text shown as `[!! … !!]`),
 * page by page with data on it, dialogs and menus opened, as an administrator and as an
 * operator. Any text a person reads outside a bracket came from no catalog, and fails the test
 * with the page and the text. Only the test's own data, codes and numbers may stand bare.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { test } from './data-fixtures';
import { deviceHeartbeat, postRecognition, tag } from './support/admin-api';
import { unwrappedTexts } from './support/pseudo';

/** Waits for `ready`, then for the page to show nothing outside the catalogs. */
async function expectAllWrapped(page: Page, where: string, ready: Locator, data: string[]) {
  await expect(ready, `${where}: the page did not load`).toBeVisible();
  await expect
    .poll(() => unwrappedTexts(page, data), { message: `${where}: text outside the catalogs` })
    .toEqual([]);
}

const wrapped = (text: string) =>
  new RegExp(`\\[!! ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

test('every page, dialog and menu shows only catalog texts (pseudo-locale)', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  test.setTimeout(180_000);
  const t = tag();
  const data = [
    admin.username,
    `Quokka ${t}`,
    `Zephyr ${t}`,
    `Xylo Gate ${t}`,
    `Wombat Yarrow ${t}`,
    `QY-${t}`,
  ];
  const site1 = await adminApi.createSpace(`Quokka ${t}`);
  const door = (await adminApi.post('/api/spaces', {
    name: `Zephyr ${t}`,
    parentId: site1.id,
  })) as {
    id: string;
  };
  const gate = await adminApi.createDevice(`Xylo Gate ${t}`, door.id);
  data.push(gate.sn);
  await deviceHeartbeat(page.request, site.serverURL, gate);
  const person = await adminApi.createPerson({
    name: `Wombat Yarrow ${t}`,
    idNumber: `QY-${t}`,
    spaceIds: [door.id],
  });
  const eventId = await postRecognition(page.request, site.serverURL, gate, {
    personId: person.id,
  });
  // Whatever else the worker's stack holds (other tests' names, the seeded organization) is data.
  const names = async (path: string, field: string) =>
    ((await adminApi.get(path)) as { items: Record<string, string>[] }).items.map((i) => i[field]!);
  data.push(
    ...(await names('/api/organizations', 'name')),
    ...(await names('/api/administrators?pageSize=200', 'username')),
    ...(await names('/api/administrators?pageSize=200', 'displayName')),
    ...(await names('/api/devices?pageSize=200', 'name')),
    ...(await names('/api/spaces?pageSize=200', 'name')),
    ...(await names('/api/people?pageSize=200', 'name')),
  );

  // Signed out: the sign-in page, and a refused sign-in (a server error, in the catalog's words).
  await page.goto('/?pseudo');
  const heading = page.getByRole('heading', { level: 1 });
  await expectAllWrapped(page, 'sign-in', heading, data);
  await page.getByLabel(wrapped('Username')).fill(admin.username);
  await page.getByLabel(wrapped('Password')).fill('not the password at all');
  await page.getByRole('button', { name: wrapped('Sign in') }).click();
  await expectAllWrapped(page, 'sign-in refused', page.getByTestId('login-error'), data);
  await page.getByLabel(wrapped('Password')).fill(admin.password);
  await page.getByRole('button', { name: wrapped('Sign in') }).click();
  await expect(page.getByTestId('current-username')).toHaveText(admin.username);

  const pages: [string, string, Locator][] = [
    ['/', 'dashboard', page.getByTestId('checklist-progress')],
    ['/organizations', 'organizations', page.getByTestId('own-permissions')],
    [`/spaces?space=${door.id}`, 'spaces', page.getByRole('region', { name: /Zephyr/ })],
    ['/system', 'system', page.getByTestId('central-state')],
    ['/devices', 'devices', page.getByTestId('device-row').first()],
    [`/devices/${gate.id}`, 'device', page.getByTestId('device-reconciliation')],
    ['/people', 'people', page.getByTestId('person-row').first()],
    [`/people/${person.id}`, 'person', page.getByTestId('person-name')],
    [`/people/${person.id}/edit`, 'person form', page.getByTestId('person-name').or(heading)],
    ['/people/new', 'new person', heading],
    ['/import', 'import', heading],
    ['/enrollment/changes', 'pending changes', page.getByTestId('changes-total')],
    ['/events', 'events', page.getByTestId('event-row').first()],
    [`/events/${eventId}`, 'event', page.getByTestId('delivery-history')],
    ['/sync', 'sync', page.getByTestId('sync-total')],
    ['/administrators', 'administrators', page.getByTestId('administrator-row').first()],
    ['/audit', 'audit', page.getByTestId('audit-row').first()],
    ['/settings', 'settings', page.getByTestId('session-timeouts')],
    ['/no-such-page', 'not found', heading],
  ];
  for (const [path, where, ready] of pages) {
    await page.goto(path);
    await expectAllWrapped(page, where, ready, data);
  }

  // Dialogs and menus.
  await page.goto('/devices');
  await page.getByRole('button', { name: wrapped('Register device') }).click();
  await expectAllWrapped(page, 'register device', page.getByRole('dialog'), data);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: new RegExp(`Xylo Gate ${t}`) }).click();
  await expectAllWrapped(page, 'device actions', page.getByRole('menu'), data);
  await page.getByRole('menuitem', { name: wrapped('Rotate key') }).click();
  await expectAllWrapped(page, 'rotate key', page.getByRole('dialog'), data);
  await page
    .getByRole('dialog')
    .getByRole('button', { name: wrapped('Cancel') })
    .click();

  await page.goto(`/spaces?space=${door.id}`);
  await page.getByRole('button', { name: wrapped('Delete') }).click();
  await expectAllWrapped(page, 'delete space', page.getByRole('dialog'), data);
  await page
    .getByRole('dialog')
    .getByRole('button', { name: wrapped('Cancel') })
    .click();
  await page.getByRole('button', { name: wrapped('New space') }).click();
  await expectAllWrapped(page, 'new space', page.getByRole('dialog'), data);
  await page.keyboard.press('Escape');

  await page.goto(`/people/${person.id}`);
  await page.getByRole('button', { name: wrapped('Delete') }).click();
  await expectAllWrapped(page, 'delete person', page.getByTestId('delete-warning'), data);
  await page.keyboard.press('Escape');

  await page.goto('/administrators');
  await page.getByRole('button', { name: wrapped('New administrator') }).click();
  await expectAllWrapped(page, 'new administrator', page.getByRole('dialog'), data);
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: wrapped('Account') }).click();
  await expectAllWrapped(page, 'account menu', page.getByRole('menu'), data);
  await page.getByRole('menuitem', { name: wrapped('Change password') }).click();
  await expectAllWrapped(page, 'change password', page.getByRole('dialog'), data);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: wrapped('Account') }).click();
  await page.getByRole('menuitem', { name: wrapped('Two-factor sign-in') }).click();
  await expectAllWrapped(page, 'two-factor', page.getByRole('dialog'), data);
  await page.keyboard.press('Escape');

  // A half-filled form asks before it is left.
  await page.goto('/people/new');
  await page.getByRole('textbox', { name: wrapped('Name') }).fill('Half filled');
  data.push('Half filled');
  await page
    .getByRole('navigation', { name: wrapped('Sections') })
    .getByRole('link', { name: wrapped('Dashboard') })
    .click();
  await expectAllWrapped(page, 'leave guard', page.getByRole('dialog'), data);
});

test('an operator’s pages and refusals show only catalog texts (pseudo-locale)', async ({
  page,
  operator,
}) => {
  await page.goto('/?pseudo');
  await page.getByLabel(wrapped('Username')).fill(operator.username);
  await page.getByLabel(wrapped('Password')).fill(operator.password);
  await page.getByRole('button', { name: wrapped('Sign in') }).click();
  await expect(page.getByTestId('current-username')).toHaveText(operator.username);
  const data = [operator.username];
  for (const path of ['/administrators', '/import', '/people/new', '/audit', '/settings']) {
    await page.goto(path);
    await expectAllWrapped(page, path, page.getByRole('heading', { level: 1 }), data);
  }
});
