import { expect, test } from './data-fixtures';
import { PersonDetailPage, PersonFormPage, signIn } from './data-pages';
import { DevicesPage, SpacesPage } from './site-pages';
import { EditConflictNotice } from './state-pages';
import { tag } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

test('person: a save over someone else’s change is refused, shown, merged and saved again', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const person = await adminApi.createPerson({ name: `Mira ${t}`, idNumber: `MC-${t}` });
  await signIn(page, admin, `/people/${person.id}/edit`);
  const form = new PersonFormPage(page);
  await expect(form.name).toHaveValue(`Mira ${t}`);

  // Another administrator saves first: a new name and notes.
  await adminApi.patch(`/api/people/${person.id}`, {
    name: `Mira Other ${t}`,
    notes: 'Badge lost, new card given',
  });

  // This one changes the name too, and the phone, then saves.
  await form.name.fill(`Mira Mine ${t}`);
  await form.form.getByRole('textbox', { name: 'Phone' }).fill('+1 555 0142');
  await form.save.click();

  const conflict = new EditConflictNotice(page);
  await expect(conflict.notice).toContainText('Nothing was saved');
  await expect(conflict.change('Notes')).toContainText('Badge lost, new card given');
  await expect(conflict.change('Notes')).toContainText('taken into the form');
  await expect(conflict.change('Name')).toContainText(`now “Mira Other ${t}”`);
  await expect(conflict.change('Name')).toContainText(`your “Mira Mine ${t}” is kept`);
  await expect(form.form.getByRole('textbox', { name: 'Notes' })).toHaveValue(
    'Badge lost, new card given',
  );
  await expect(form.name).toHaveValue(`Mira Mine ${t}`);
  await expect(page).toHaveURL(new RegExp(`/people/${person.id}/edit$`));
  await expectAccessible(page);

  // Reviewed: saved again, with their notes and this one's name and phone.
  await form.save.click();
  const detail = new PersonDetailPage(page);
  await expect(detail.heading(`Mira Mine ${t}`)).toBeVisible();
  const saved = (await adminApi.get(`/api/people/${person.id}`)) as Record<string, unknown>;
  expect(saved).toMatchObject({
    name: `Mira Mine ${t}`,
    phone: '+1 555 0142',
    notes: 'Badge lost, new card given',
  });
});

test('spaces: a duplicate name under one parent is refused; a rename over another is reviewed', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const hall = await adminApi.createSpace(`Hall ${t}`);
  await signIn(page, admin, '/spaces');
  const spaces = new SpacesPage(page);
  await expect(spaces.heading).toBeVisible();

  await spaces.newSpace.click();
  await spaces.fill(`hall ${t}`);
  await expect(spaces.dialog.getByRole('alert')).toContainText(
    `A space named "Hall ${t}" already exists at the top level; choose another name.`,
  );
  await expect(spaces.dialog.getByRole('textbox', { name: 'Name' })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  // The refused name is still typed: Esc asks before throwing it away.
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Discard' }).click();
  await expect(spaces.dialog).toHaveCount(0);

  await spaces.node(`Hall ${t}`).click();
  await spaces.action('Rename or move').click();
  await adminApi.patch(`/api/spaces/${hall.id}`, { name: `Great Hall ${t}` });
  await spaces.fill(`Small Hall ${t}`, undefined, 'Save');
  const conflict = new EditConflictNotice(page);
  await expect(conflict.change('Name')).toContainText(`now “Great Hall ${t}”`);
  await spaces.dialog.getByRole('button', { name: 'Save' }).click();
  await expect(spaces.dialog).toBeHidden();
  await expect(spaces.node(`Small Hall ${t}`)).toBeVisible();
});

test('devices: edit the address, name and model (reviewed over another save); remove asks first', async ({
  page,
  admin,
  adminApi,
}) => {
  const t = tag();
  const device = await adminApi.createDevice(`Gate ${t}`);
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  const row = devices.row(device.sn);
  await expect(row).toBeVisible();

  await devices.action(`Gate ${t}`, 'Edit name, address, model');
  const address = devices.dialog.getByRole('textbox', { name: 'Address' });
  await address.fill('not an address');
  await expect(address).toHaveAttribute('aria-invalid', 'true');
  await address.fill('http://192.0.2.44:8090');
  await devices.dialog.getByRole('textbox', { name: 'Model' }).fill(`M-${t}`);
  // Someone renames the device meanwhile: their name is taken, this address and model kept.
  await adminApi.patch(`/api/devices/${device.id}`, { name: `North gate ${t}` });
  await devices.dialog.getByRole('button', { name: 'Save' }).click();
  const conflict = new EditConflictNotice(page);
  await expect(conflict.change('Name')).toContainText('taken into the form');
  await expect(devices.dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(
    `North gate ${t}`,
  );
  await expectAccessible(page);
  await devices.dialog.getByRole('button', { name: 'Save' }).click();
  await expect(devices.dialog).toBeHidden();
  await expect(row).toContainText(`North gate ${t}`);
  expect(await adminApi.get(`/api/devices/${device.id}`)).toMatchObject({
    name: `North gate ${t}`,
    baseUrl: 'http://192.0.2.44:8090',
    model: `M-${t}`,
  });

  await devices.action(`North gate ${t}`, 'Remove device');
  await expect(devices.dialog).toContainText('its key stops working at once');
  await devices.dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(row).toBeVisible();
  await devices.action(`North gate ${t}`, 'Remove device');
  await devices.dialog.getByRole('button', { name: 'Remove device' }).click();
  await expect(row).toHaveCount(0);
  await expectNothingClippedAt390(page);
});
