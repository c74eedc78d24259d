/**
 * axe-core 4.14: no serious or critical violation on every route of the site's route table
 * (src/routes.tsx), empty and filled, at 1280 and 390 px. Dialogs, errors and lists of two or
 * more pages are in a11y-states.spec.ts. Each test signs in once through the API and waits for
 * what shows the state has rendered, never a fixed time.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { organizationOut } from '@svc/shared';
import { expect, test } from './data-fixtures';
import { ChangePasswordPage, LoginPage } from './pages';
import { accessibleAtBothWidths, budget, open, signInQuickly } from './support/a11y';
import { postRecognition, tag } from './support/admin-api';
import { expectAccessible } from './support/checks';
import { webDir } from './support/env';

/** Every route of the route table, and the test below that checks it. */
const COVERED: Record<string, string> = {
  '/': 'empty, filled',
  '/people': 'empty, filled; two pages in a11y-states',
  '/people/new': 'empty; errors in a11y-states',
  '/people/$id': 'filled; delete question in a11y-states',
  '/people/$id/erasure': 'filled',
  '/people/$id/edit': 'filled',
  '/events': 'empty, filled; two pages in a11y-states',
  '/events/$id': 'filled',
  '/sync': 'empty, filled; two pages in a11y-states',
  '/spaces': 'empty, filled; dialog and error in a11y-states',
  '/devices': 'empty, filled; dialogs in a11y-states',
  '/devices/$id': 'filled',
  '/system': 'empty, filled',
  '/organizations': 'filled; dialog in a11y-states',
  '/administrators': 'empty, filled; dialog in a11y-states',
  '/enrollment/changes': 'empty',
  '/enrollment/changes/$id': 'not found in a11y-states (a real change: enrollment.spec.ts)',
  '/audit': 'empty, filled; two pages in a11y-states',
  '/import': 'empty; refused file in a11y-states',
  '/settings': 'filled',
};

test('the accessibility checks cover every route of the route table', () => {
  const source = readFileSync(path.join(webDir, 'src', 'routes.tsx'), 'utf8');
  const routes = [...source.matchAll(/\bpath: '([^']+)'/g)].map((m) => m[1]);
  expect(routes.length).toBeGreaterThan(10);
  expect([...routes].sort()).toEqual(Object.keys(COVERED).sort());
});

test('the axe check finds a violation planted in a page', async ({ page }) => {
  await new LoginPage(page).goto('/');
  // An image with no text alternative and a button with no name: both critical.
  await page.evaluate(() => {
    const img = document.createElement('img');
    img.src = '/favicon.svg';
    document.body.append(img, document.createElement('button'));
  });
  await expect(expectAccessible(page, 'planted')).rejects.toThrow(
    /image-alt[\s\S]*button-name|button-name[\s\S]*image-alt/,
  );
});

test('signed out: the sign-in page, its refusal, and the forced password change', async ({
  page,
  adminApi,
}) => {
  test.setTimeout(budget(3));
  const login = new LoginPage(page);
  await login.goto('/');
  await accessibleAtBothWidths(page, 'sign-in');
  await login.signIn('nobody-here', 'not the password');
  await expect(login.error).toBeVisible();
  await accessibleAtBothWidths(page, 'sign-in refused');

  // A new account must change its one-time password first.
  const created = (await adminApi.post('/api/administrators', {
    username: `a11y-${tag()}`,
    role: 'operator',
  })) as { username: string; temporaryPassword: string };
  await login.signIn(created.username, created.temporaryPassword);
  await expect(new ChangePasswordPage(page).heading).toBeVisible();
  await accessibleAtBothWidths(page, 'forced password change');
});

test('every list page of an empty organization', async ({ page, admin, adminApi }) => {
  const pages: [string, string][] = [
    ['/', 'Dashboard'],
    ['/people', 'People'],
    ['/people/new', 'New person'],
    ['/spaces', 'Spaces'],
    ['/devices', 'Devices'],
    ['/events', 'Events'],
    ['/sync', 'Synchronization'],
    ['/enrollment/changes', 'Pending changes'],
    ['/administrators', 'Administrators'],
    ['/audit', 'Audit log'],
    ['/import', 'Import'],
    ['/system', 'System Configuration'],
  ];
  test.setTimeout(budget(pages.length));
  // A new organization has nothing yet: the superadmin works in it.
  const empty = organizationOut.parse(
    await adminApi.post('/api/organizations', { name: `Empty ${tag()}` }),
  );
  await signInQuickly(page, admin, empty.id);
  for (const [to, heading] of pages) {
    await open(page, to, page.getByRole('heading', { name: heading, level: 1 }));
    await accessibleAtBothWidths(page, `${to} (empty)`);
  }
});

test('every page filled: lists, a person, a device, an event, an erasure', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  test.setTimeout(budget(15));
  const t = tag();
  const space = await adminApi.createSpace(`Hall ${t}`);
  const device = await adminApi.createDevice(`Gate ${t}`, space.id);
  const person = await adminApi.createPerson({
    name: `Ada ${t}`,
    idNumber: `ADA${t}`.toUpperCase(),
    spaceIds: [space.id],
    phone: '+41 44 000 00 00',
    notes: 'Visitor badge at the desk.',
  });
  const gone = await adminApi.createPerson({
    name: `Gone ${t}`,
    idNumber: `GONE${t}`.toUpperCase(),
    spaceIds: [space.id],
  });
  await adminApi.delete(`/api/people/${gone.id}`);
  const eventId = await postRecognition(page.request, site.serverURL, device, {
    personId: person.id,
  });
  await signInQuickly(page, admin);

  const heading = (name: string) => page.getByRole('heading', { name, level: 1 });
  const states: [string, ReturnType<typeof heading>][] = [
    ['/', heading('Dashboard')],
    [`/people?q=${encodeURIComponent(`Ada ${t}`)}`, page.getByRole('link', { name: `Ada ${t}` })],
    [`/people/${person.id}`, heading(`Ada ${t}`)],
    [`/people/${person.id}/edit`, heading(`Edit Ada ${t}`)],
    [`/people/${gone.id}/erasure`, heading('Erasing a deleted person')],
    [`/spaces?space=${space.id}`, page.getByRole('region', { name: `Space Hall ${t}` })],
    ['/devices', page.getByRole('button', { name: `Actions for Gate ${t}` })],
    [`/devices/${device.id}`, heading(`Gate ${t}`)],
    ['/events', page.getByRole('table').getByText(`Ada ${t}`).first()],
    [`/events/${eventId}`, heading(`Ada ${t} at Gate ${t}`)],
    ['/sync', heading('Synchronization')],
    ['/audit', page.getByRole('table', { name: 'Audit log' }).getByRole('row').nth(1)],
    ['/administrators', page.locator(`[data-username="${admin.username}"]`)],
    ['/organizations', page.getByTestId('organization-row').first()],
    ['/settings', heading('Settings')],
  ];
  for (const [to, ready] of states) {
    await open(page, to, ready);
    await accessibleAtBothWidths(page, `${to} (filled)`);
  }
});
