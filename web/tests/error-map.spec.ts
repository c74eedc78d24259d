import { errorBody, messageCatalog } from '@svc/shared';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { DevicesPage } from './site-pages';
import { expectAccessible } from './support/checks';

test('one error map: an empty field says Required, and the form says what the server says', async ({
  page,
  admin,
  adminApi,
}) => {
  await signIn(page, admin, '/devices');
  const devices = new DevicesPage(page);
  await devices.register.click();
  const form = page.getByRole('form', { name: 'Register device' });
  const sn = form.getByRole('textbox', { name: 'Serial number' });
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(sn).toHaveAttribute('aria-invalid', 'true');
  // Empty: "Required.", not the format rule of a value nobody typed, nor schema wording.
  await expect(form.getByText('Required.').first()).toBeVisible();
  expect(
    await sn.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id))
        .filter((node) => node?.id.endsWith('-error'))
        .map((node) => node?.textContent ?? '')
        .join(''),
    ),
  ).toBe('Required.');
  await expect(form.getByText(messageCatalog.format_node_id)).toHaveCount(0);
  await expect(form.getByText(/Too small|expected string|Invalid input/)).toHaveCount(0);

  await sn.fill('bad sn!');
  await expect(form.getByText(messageCatalog.format_node_id)).toBeVisible();
  await expectAccessible(page);

  // The server's 400 answer says the same sentence, word for word.
  const refused = await adminApi.postAnyway('/api/devices', {
    sn: 'bad sn!',
    name: 'Door',
    baseUrl: 'http://127.0.0.1:9',
  });
  expect(refused.status).toBe(400);
  const body = errorBody.parse(refused.body);
  expect(body.error.fields).toEqual({ sn: messageCatalog.format_node_id });
  expect(body.error.fieldCodes).toEqual({ sn: { code: 'format_node_id' } });
});

test('an old outcome clears on the next submit: "saved" does not stay under a new error', async ({
  page,
  admin,
}) => {
  await signIn(page, admin, '/system');
  const panel = page.getByRole('form', { name: 'Panel route' });
  const url = panel.getByRole('textbox', { name: 'Panel URL' });
  await url.fill('http://127.0.0.1:9/api/recognition');
  await panel.getByRole('button', { name: 'Save panel route' }).click();
  const message = page.getByTestId('panel-message');
  await expect(message).toHaveText('Panel route saved.');
  await url.fill('not a url');
  await panel.getByRole('button', { name: 'Save panel route' }).click();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(panel.getByText(messageCatalog.url_http)).toBeVisible();
  await expect(message).toHaveCount(0);
});
