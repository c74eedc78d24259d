/**
 * axe-core 4.14 in the states a page only shows after something was done: dialogs and menus
 * open, errors shown, pages not found, lists of two or more pages. At 1280 and 390 px, no
 * serious or critical violation; every route and its empty and filled states: a11y.spec.ts.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test, testWithSync } from './data-fixtures';
import { PersonFormPage } from './data-pages';
import { ImportPage } from './bulk-pages';
import { SpacesPage } from './site-pages';
import { accessibleAtBothWidths, budget, open, signInQuickly } from './support/a11y';
import { expectAccessible } from './support/checks';
import { postRecognition, tag } from './support/admin-api';

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

/** Opens what `trigger` opens, checks it at both widths, and closes it with `close`. */
async function withOpen(
  page: Page,
  what: string,
  trigger: () => Promise<void>,
  opened: Locator,
  close: () => Promise<void>,
): Promise<void> {
  await trigger();
  await expect(opened).toBeVisible();
  await accessibleAtBothWidths(page, what);
  await close();
  await expect(opened).toBeHidden();
}

test('dialogs and menus open', async ({ page, admin, adminApi }) => {
  test.setTimeout(budget(10));
  const t = tag();
  const space = await adminApi.createSpace(`Wing ${t}`);
  await adminApi.createDevice(`Door ${t}`, space.id);
  const person = await adminApi.createPerson({ name: `Bo ${t}`, idNumber: `BO${t}`.toUpperCase() });
  await signInQuickly(page, admin);
  const dialog = page.getByRole('dialog');
  const cancel = () => dialog.getByRole('button', { name: 'Cancel' }).click();
  const escape = () => page.keyboard.press('Escape');

  await open(page, '/spaces', heading(page, 'Spaces'));
  await withOpen(page, 'new space', () => new SpacesPage(page).newSpace.click(), dialog, escape);

  await open(page, '/devices', heading(page, 'Devices'));
  const actions = page.getByRole('button', { name: `Actions for Door ${t}` });
  await withOpen(page, 'device menu', () => actions.click(), page.getByRole('menu'), escape);
  await withOpen(
    page,
    'register device',
    () => page.getByRole('button', { name: 'Register device' }).click(),
    dialog,
    escape,
  );
  await actions.click();
  await withOpen(
    page,
    'rotate key question',
    () => page.getByRole('menuitem', { name: 'Rotate key' }).click(),
    dialog,
    cancel,
  );

  await open(page, `/people/${person.id}`, heading(page, `Bo ${t}`));
  await withOpen(
    page,
    'delete person question',
    () => page.getByRole('button', { name: 'Delete', exact: true }).click(),
    dialog,
    cancel,
  );

  await open(page, '/administrators', heading(page, 'Administrators'));
  await withOpen(
    page,
    'new administrator',
    () => page.getByRole('button', { name: 'New administrator' }).click(),
    dialog,
    escape,
  );

  await open(page, '/organizations', heading(page, 'Organizations'));
  await withOpen(
    page,
    'new organization',
    () => page.getByRole('button', { name: 'New organization' }).click(),
    dialog,
    escape,
  );

  const account = page.getByRole('banner').getByRole('button', { name: 'Account' });
  await withOpen(page, 'account menu', () => account.click(), page.getByRole('menu'), escape);
  await account.click();
  await withOpen(
    page,
    'change password',
    () => page.getByRole('menuitem', { name: 'Change password' }).click(),
    dialog,
    escape,
  );
  await account.click();
  await withOpen(
    page,
    'two-factor sign-in',
    () => page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click(),
    dialog,
    escape,
  );
});

test('errors shown: forms refused, a file refused, pages not found', async ({ page, admin }) => {
  test.setTimeout(budget(9));
  await signInQuickly(page, admin);

  const form = new PersonFormPage(page);
  await open(page, '/people/new', heading(page, 'New person'));
  await form.create.click();
  await expect(form.name).toHaveAttribute('aria-invalid', 'true');
  await accessibleAtBothWidths(page, 'new person, required fields empty');

  const spaces = new SpacesPage(page);
  await open(page, '/spaces', heading(page, 'Spaces'));
  await spaces.newSpace.click();
  await spaces.dialog.getByRole('button', { name: 'Create' }).click();
  await expect(spaces.dialog.getByRole('textbox', { name: 'Name' })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await accessibleAtBothWidths(page, 'new space, name empty');
  await page.keyboard.press('Escape');

  const imports = new ImportPage(page);
  await imports.goto();
  // A JPEG picked as the CSV (its first bytes are enough to be refused).
  await imports.chooseCsv({
    name: 'holiday.jpg',
    mimeType: 'image/jpeg',
    buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]),
  });
  await imports.form.getByRole('button', { name: 'Start import' }).click();
  await expect(imports.csvError()).toBeVisible();
  await accessibleAtBothWidths(page, 'import, file refused');

  const missing = '00000000-0000-4000-8000-000000000000';
  for (const to of [
    `/people/${missing}`,
    `/devices/${missing}`,
    `/events/${missing}`,
    `/enrollment/changes/${missing}`,
  ]) {
    await open(page, to, page.getByText(/not found/i).first());
    await accessibleAtBothWidths(page, `${to} (not found)`);
  }
  await open(page, '/no-such-page', heading(page, 'Page not found'));
  await accessibleAtBothWidths(page, 'unknown address');
});

test('lists of two or more pages: people, events, audit log', async ({
  page,
  admin,
  adminApi,
  site,
}) => {
  test.setTimeout(budget(3, 120_000));
  const t = tag();
  const space = await adminApi.createSpace(`Atrium ${t}`);
  const device = await adminApi.createDevice(`Turnstile ${t}`, space.id);
  // 26 people (25 a page), 51 events (50 a page); 56 audit entries at least (50 a page).
  for (let i = 0; i < 30; i++) await adminApi.createSpace(`Room ${i} ${t}`);
  const people = [];
  for (let i = 0; i < 26; i++) {
    people.push(
      await adminApi.createPerson({
        name: `Pager ${t} ${String(i).padStart(2, '0')}`,
        idNumber: `PG${t}${i}`.toUpperCase(),
      }),
    );
  }
  for (let i = 0; i < 51; i++) {
    await postRecognition(page.request, site.serverURL, device, {
      personId: people[i % people.length]!.id,
    });
  }
  await signInQuickly(page, admin);
  const second = page.getByRole('button', { name: 'Page 2' });

  await open(page, `/people?q=${encodeURIComponent(`Pager ${t}`)}`, second);
  await accessibleAtBothWidths(page, 'people, two pages');
  await open(page, `/events?device=${device.id}`, second);
  await accessibleAtBothWidths(page, 'events, two pages');
  await open(page, '/audit', second);
  await accessibleAtBothWidths(page, 'audit log, two pages');
});

testWithSync(
  '/sync with two pages of tasks: state cards named by their words, pagination buttons named',
  async ({ page, syncSite }) => {
    testWithSync.setTimeout(budget(1, 150_000));
    const { api, admin } = syncSite;
    const t = tag();
    const space = await api.createSpace(`Hall ${t}`);
    await api.createDevice(`Gate ${t}`, space.id);
    for (let i = 0; i < 51; i++) {
      await api.createPerson({
        name: `Guest ${i} ${t}`,
        idNumber: `G${i}X${t}`,
        spaceIds: [space.id],
      });
    }
    await signInQuickly(page, admin);
    await page.goto('/sync');
    await expect(page.getByRole('button', { name: 'Page 2' })).toBeVisible({ timeout: 60_000 });
    // The name begins with what is seen ("failed 3"), so "click failed" finds it.
    await expect(
      page.getByRole('button', { name: /^failed [\d,]+ task\(s\); show only failed$/ }),
    ).toBeVisible();
    await accessibleAtBothWidths(page, '/sync, two pages');
  },
);

// Fixme (2026-11-29): after the held request is released the spinner stayed for the rest of the
// test, on the tree before this session's merges (load 25) and after them (load 10), retry
// included; not yet explained. Its axe check of the spinner itself passed.
test('a spinner is named and allowed while it shows (two-factor status held)', async ({
  page,
  admin,
}) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/auth/2fa', async (route) => {
    await held;
    await route.continue();
  });
  await signInQuickly(page, admin);
  await open(page, '/people', heading(page, 'People'));
  await page.getByRole('button', { name: 'Account' }).click();
  await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Two-factor sign-in' });
  await expect(dialog.getByRole('status', { name: 'Loading' })).toBeVisible();
  await expectAccessible(page, 'two-factor dialog while loading');
  release();
  await expect(dialog.getByRole('status')).toHaveCount(0);
});
