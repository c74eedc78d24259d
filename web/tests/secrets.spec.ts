import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { lanAddress, SecretDialog } from './safety-pages';
import { DevicesPage } from './site-pages';
import { tag } from './support/admin-api';
import { startNginx } from './support/stack';
import { expectAccessible } from './support/checks';

test('secrets shown once survive Esc and stray clicks, and Copy works over plain HTTP on a LAN address', async ({
  page,
  admin,
  adminApi,
  site,
  nginxBin,
  runDir,
}) => {
  test.setTimeout(90_000);
  const address = lanAddress();
  expect(address, 'this machine has a non-loopback IPv4 address').not.toBeNull();
  // The normal deployment: the site over plain HTTP on the machine's LAN address.
  const lan = await startNginx({
    nginxBin,
    runDir: mkdtempSync(path.join(runDir, 'lan-')),
    upstream: new URL(site.serverURL).host,
    host: address ?? '',
  });
  try {
    const t = tag();
    const device = await adminApi.createDevice(`Door ${t}`);
    await signIn(page, admin, `${lan.url}/devices`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    const devices = new DevicesPage(page);
    await devices.action(`Door ${t}`, 'Rotate key');
    await devices.confirmRotate(`Door ${t}`);

    const key = new SecretDialog(page, 'Device key', 'device-key');
    await key.expectNotLostByAccident();
    const secret = await key.text();
    expect(secret.length).toBeGreaterThan(20);
    expect(secret).not.toBe(device.key);

    // Copy: no navigator.clipboard here, so the fallback copies the shown key.
    await key.watchCopies();
    await key.dialog.getByRole('button', { name: 'Copy key' }).click();
    await expect(key.dialog.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await key.copies()).toEqual([secret]);
    await expectAccessible(page);

    // A browser that refuses even that: the key is left selected, with what to do.
    await page.evaluate(() => {
      document.execCommand = () => false;
    });
    await key.dialog.getByRole('button', { name: 'Copied' }).click();
    await expect(key.byHand).toContainText('copy it by hand');
    expect(await key.selection()).toBe(secret);
    await page.screenshot({ path: test.info().outputPath('key-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: test.info().outputPath('key-390.png') });
    await expectAccessible(page);
    await page.setViewportSize({ width: 1280, height: 800 });

    await key.dialog.getByRole('button', { name: 'I have stored the key' }).click();
    await expect(key.dialog).toHaveCount(0);

    // A new administrator's one-time password: the same dialog.
    await page.goto(`${lan.url}/administrators`);
    await page.getByRole('button', { name: 'New administrator' }).click();
    const form = page.getByRole('dialog', { name: 'New administrator' });
    await form.getByRole('textbox', { name: 'Username' }).fill(`desk-${t}`);
    await form.getByRole('combobox', { name: 'Role' }).click();
    await page.getByRole('option', { name: 'Operator (reads only)', exact: true }).click();
    await form.getByRole('button', { name: 'Create' }).click();
    const otp = new SecretDialog(page, 'One-time password', 'one-time-password');
    await otp.expectNotLostByAccident();
    await otp.watchCopies();
    await otp.dialog.getByRole('button', { name: 'Copy password' }).click();
    await expect(otp.dialog.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await otp.copies()).toEqual([await otp.text()]);
    await page.setViewportSize({ width: 390, height: 844 });
    await otp.expectWhollyShown();
    await expectAccessible(page);
    await page.screenshot({ path: test.info().outputPath('otp-390.png') });
    await otp.dialog.getByRole('button', { name: 'I have stored it' }).click();
    await expect(otp.dialog).toHaveCount(0);
  } finally {
    await lan.process.stop();
  }
});
