import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { DeviceHandle } from '@svc/sim';
import { demoRegion } from '../../web/tests/support/faces';
import { testDiscoveryPort, type CentralProcess } from '../src/testing/central-process.js';
import type { AdminApi } from './support/admin-api.js';
import { ProofsPage } from './support/proofs-page.js';
import { ProofsStack } from './support/proofs-stack.js';
import { testPersonPrefix } from './support/catalog.js';

/**
 * Proofs that are never better than the facts: a push central refuses, the display the panel
 * route names, a device's own error, a silent or cloned terminal, the live header, and proof
 * badges read whole. One central service, simulated hardware (support/proofs-stack.ts).
 */

async function chooseFile(page: Page, label: string, file: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByLabel(label).click();
  await (await chooser).setFiles(file);
}

test.describe('proofs that are true, through the browser shell', () => {
  const stack = new ProofsStack(testDiscoveryPort(33000));
  const { terminals, runDir } = stack;
  const terminal = stack.terminal.bind(stack);
  let central: CentralProcess;
  let admin: AdminApi;
  let device: DeviceHandle;
  let page: Page;

  test.beforeAll(async ({ browser }) => {
    await stack.start(browser);
    ({ central, admin, device, page } = stack);
  });
  test.afterAll(() => stack.stop());

  test('a push central refuses is never green; a direct push is its own, labelled action', async () => {
    const ui = new ProofsPage(page);
    const temporary = await admin.createAdministrator('field-operator', 'operator');
    await ui.useCentral(central.url);
    await ui.signIn('field-operator', temporary);
    await expect(ui.terminalRow('ENR-P')).toBeVisible();
    await expect(page.getByLabel('Proof summary')).toHaveText(/^0 of \d+ proven$/);
    await ui.select('ENR-P');
    await ui.pushThroughCentral(1, central.url);
    const row = ui.pushRow('ENR-P');
    await expect(row).toContainText('✘ not saved');
    await expect(row).toContainText('refused by the central service');
    await expect(row).toContainText('change its password');
    await expect(row).not.toContainText('✔');
    // The live header says so too: the central service refused this console.
    await expect(ui.header()).toContainText('refused: this account must change its password');
    expect(terminals['ENR-P@127.0.0.1']!.config().centralUrl).toBe('');
    // Said at sign-in: what the account cannot do, and the password change offered there.
    await expect(page.getByText('must change its password first')).toBeVisible();
    await expect(page.getByRole('form', { name: 'Change password' })).toBeVisible();

    // The password change, offered at the sign-in; then the operator's own limit.
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(temporary);
    await form.getByLabel('New password').fill(`Qz9!${temporary}#Lm`);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('An operator can only read')).toBeVisible();
    await ui.pushThroughCentral(1, central.url);
    await expect(row).toContainText('an operator');
    await expect(row).toContainText('✘ not saved');
    await expect(row).not.toContainText('✔');
    expect(terminals['ENR-P@127.0.0.1']!.config().centralUrl).toBe('');

    // Pushing straight to the terminal is a separate action, and says what it is.
    await ui.pushDirectly(1);
    await expect(row).toContainText('pushed directly: not authorized at central');
    await expect(row).toContainText('✔ saved');
    await expect(row).toContainText('✔ read back');
    expect(terminals['ENR-P@127.0.0.1']!.config().centralUrl).toBe(central.url);

    // Proof badges are read whole, at a desk and on a phone; nothing is wider than the phone.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await expect(ui.pushRow('ENR-P')).toBeVisible();
      const badges = await ui.badgeWidths();
      expect(badges.length).toBe(3);
      for (const b of badges) {
        expect(b.scroll, b.text).toBeLessThanOrEqual(b.client);
        expect(b.overflowsCell, b.text).toBe(false);
      }
      if (width === 390) {
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
        ).toBeLessThanOrEqual(390);
      }
      await page.screenshot({ path: test.info().outputPath(`push-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('the terminal list says what each push proved, and drops a proof the terminal left', async () => {
    const ui = new ProofsPage(page);
    await ui.useCentral(central.url);
    await ui.signIn(central.username, central.password);
    const enrollment = terminals['ENR-P@127.0.0.1']!;
    const display = terminals['DSP-A@127.0.0.1']!;
    // DSP-A saves another address than the one pushed: the central service reports it.
    await display.setFaults({ saveDifferent: true });
    try {
      await ui.select('ENR-P', 'DSP-A');
      await ui.pushThroughCentral(2, central.url);
      await expect(ui.pushRow('ENR-P')).toContainText('✔ checked in', { timeout: 60_000 });
      await expect(ui.pushRow('DSP-A')).toContainText('✘ not saved');
    } finally {
      await display.setFaults({});
    }
    const proof = (id: string) => page.getByLabel(`Proof of ${id}`);
    await expect(proof('ENR-P')).toContainText('✔ saved✔ read back✔ checked in');
    await expect(proof('DSP-A')).toContainText('✘ not saved– read back– checked in');
    await expect(proof('DSP-A')).toContainText('saved central address');
    await expect(proof('DSP-A')).not.toContainText('✔');
    // On a phone the whole proof and its reason are in view, wrapped: no badge or word cut.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const id of ['ENR-P', 'DSP-A']) {
      // The narrow layout renders the list again after the resize: scroll the row it shows now.
      await expect(async () => {
        await proof(id).scrollIntoViewIfNeeded({ timeout: 2_000 });
      }).toPass();
      // As a phone first shows the list: not scrolled sideways.
      await page
        .getByRole('table', { name: 'Terminals' })
        .evaluate(
          'el => { for (let p = el.parentElement; p; p = p.parentElement) p.scrollLeft = 0; }',
        );
      // The proof has the phone's width to itself (a row of its own), not a column's sliver:
      // a longer reason or wider columns (the tester's 390 px list) would cut it otherwise.
      const whole = await proof(id).boundingBox();
      expect(whole!.x).toBeLessThan(60);
      expect(whole!.width).toBeGreaterThan(280);
      for (const part of [proof(id), ...(await proof(id).locator('*').all())]) {
        const box = await part.boundingBox();
        const text = await part.textContent();
        expect(box, text ?? '').not.toBeNull();
        expect(box!.x, text ?? '').toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, text ?? '').toBeLessThanOrEqual(390);
      }
    }
    await expect(proof('DSP-A')).toContainText('saved central address');
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(proof('DSP-B')).toHaveCount(0);
    await expect(ui.terminalRow('DSP-B')).toContainText('not pushed yet');
    await expect(page.getByLabel('Proof summary')).toHaveText(/^1 of \d+ proven$/);

    // Someone changes ENR-P at the terminal afterwards: its proof no longer holds.
    const changed = await fetch(`${enrollment.url}/api/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ centralUrl: 'http://10.9.9.9' }),
    });
    expect(changed.status).toBe(200);
    await enrollment.announceNow();
    await expect(proof('ENR-P')).toContainText('changed since the push');
    await expect(proof('ENR-P')).toContainText('it now announces http://10.9.9.9');
    await expect(proof('ENR-P')).not.toContainText('✔');
    await expect(page.getByLabel('Proof summary')).toHaveText(/^0 of \d+ proven$/);
    await ui.tab('Acceptance').click();
    await ui.openLayer('Terminal configuration');
    const layer = await ui.runLayer('Terminal configuration');
    await expect(layer.getByLabel('Terminal configuration evidence')).toContainText(
      '✘ ENR-P: changed since the push',
    );
    await ui.tab('Terminals').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('the recognition loop checks the display the panel route names, of two', async () => {
    const ui = new ProofsPage(page);
    const displayB = terminals['DSP-B@127.0.0.1']!;
    await admin.call('POST', '/api/panel/route', {
      mode: 'local',
      url: `${displayB.url}/api/recognition`,
    });
    await device.emitEvent({ personId: null, score: 0.41 });
    await expect.poll(() => displayB.lastEvent()?.device.sn ?? null).toBe('DEV-P');
    await ui.useCentral(central.url);
    await ui.signIn(central.username, central.password);
    await ui.tab('Acceptance').click();
    await page
      .getByRole('button', {
        name: /Recognition loop (not run|waiting for a hand confirmation|passed|failed)$/,
      })
      .click();
    const layer = await ui.runLayer('Recognition loop');
    const evidence = layer.getByLabel('Recognition loop evidence');
    await expect(evidence).toContainText('✔ display DSP-B shows: stranger at DEV-P');
    await expect(evidence).toContainText('(display DSP-B)');
    await expect(evidence).toContainText('✔ same device');
    await expect(evidence).not.toContainText('✘');
    // Run and its evidence are in view together at 1280×800, beside the stepper.
    await expect(
      layer.getByRole('button', { name: 'Run Recognition loop check' }),
    ).toBeInViewport();
    await expect(evidence).toBeInViewport();
    await page.screenshot({ path: test.info().outputPath('acceptance-1280.png') });

    // A display that refuses is named, with what was read and what to try.
    await displayB.setFaults({ refuse: true });
    try {
      await layer.getByRole('button', { name: 'Run Recognition loop check' }).click();
      await expect(evidence).toContainText(
        /✘ display DSP-B shows: could not read what display DSP-B \(127\.0\.0\.1:\d+\) shows: connection refused.*run Diagnostics with 127\.0\.0\.1/,
      );
      await expect(page.getByRole('button', { name: /^✘ Recognition loop failed/ })).toBeVisible();
    } finally {
      await displayB.setFaults({});
    }
  });

  test('a device that answers 500 is named with its error and what happens next; no test person is left', async () => {
    const ui = new ProofsPage(page);
    await ui.useCentral(central.url);
    await ui.signIn(central.username, central.password);
    await ui.tab('Acceptance').click();
    await page
      .getByRole('button', {
        name: /Synchronization (not run|waiting for a hand confirmation|passed|failed)$/,
      })
      .click();
    const sync = page.getByLabel('Synchronization layer');
    // The test person's name at central is the catalog's, in the language the console speaks.
    const testPerson = await testPersonPrefix(page);
    await sync.getByLabel('Space for the test person').fill('Gate P');

    // A photo the central service refuses: the layer fails, and the test person is gone.
    const bad = path.join(runDir, 'not-a-photo.jpg');
    writeFileSync(bad, 'not a photo at all');
    await chooseFile(page, "Test person's photo (JPEG)", bad);
    await ui.runLayer('Synchronization');
    const evidence = sync.getByLabel('Synchronization evidence');
    await expect(evidence).toContainText('✘ synchronized: the central service refused the photo');
    await expect(evidence).toContainText('✔ test person erased at central');
    expect(await admin.peopleNamed(testPerson)).toEqual([]);

    // The device answers 500: its error, and the central service's next attempt, in words.
    await device.setFaults({ status500: true });
    const photo = path.join(runDir, 'test-person.jpg');
    writeFileSync(photo, await demoRegion(4, 1205, 46, 290, 464, 'jpeg'));
    await chooseFile(page, "Test person's photo (JPEG)", photo);
    await sync.getByRole('button', { name: 'Run Synchronization check' }).click();
    await expect(evidence).toContainText('✘ device DEV-P', { timeout: 60_000 });
    await expect(evidence).toContainText('the device answered:');
    await expect(evidence).toContainText(/tries again at \d\d:\d\d:\d\d/);
    await expect(evidence).not.toContainText('is a device registered');
    await expect(evidence).toContainText('✔ test person erased at central');
    expect(await admin.peopleNamed(testPerson)).toEqual([]);
    await device.setFaults({});
  });

  test('a silent terminal on this laptop’s subnet and a cloned id are diagnosed', async () => {
    const ui = new ProofsPage(page);
    await ui.tab('Terminals').click();
    // The clone: one id from two addresses, flagged in the list.
    const clone = await terminal('DSP-CLONE', 'display', { bindAddress: '127.0.0.5' });
    await clone.announceNow();
    await expect(ui.terminalRow('DSP-CLONE')).toContainText(
      /ID conflict: also announced from 127\.0\.0\.[45]/,
    );
    const findings = await ui.diagnose('127.0.0.3');
    await expect(findings).toContainText('No announce came from 127.0.0.3');
    await expect(findings).toContainText('a terminal, central address none');
    await expect(findings).toContainText('a terminal runs there, but its announces do not reach');
    await expect(findings).not.toContainText('Nothing looks wrong');
    await expect(findings).toContainText(/DSP-CLONE is announced from two addresses/);
  });

  test('a running push shows where each terminal is, not a frozen screen', async () => {
    const ui = new ProofsPage(page);
    await ui.tab('Terminals').click();
    await ui.useCentral(central.url);
    await ui.signIn(central.username, central.password);
    // DSP-B takes its time over every call (under the 5 s a terminal is given): its save
    // through the central service and its read-back last seconds, while ENR-P is done at once.
    const slow = terminals['DSP-B@127.0.0.1']!;
    await slow.setFaults({ delayMs: 4000 });
    try {
      // None selected (earlier tests chose others), then these two.
      const all = page.getByLabel('Select all terminals shown');
      if (!(await all.isChecked())) await all.check();
      await all.uncheck();
      await ui.select('ENR-P', 'DSP-B');
      await ui.pushThroughCentral(2, central.url);
      const running = page.getByRole('table', { name: 'Push in progress' });
      const row = (id: string) => running.getByRole('row').filter({ hasText: id });
      await expect(row('DSP-B')).toContainText('1/3 saving through the central service');
      // While DSP-B is still saving (its push lasts seconds): a slow screenshot comes after.
      await expect(row('ENR-P')).toContainText(/✔ done|3\/3 waiting for check-in/);
      await expect(
        page.getByRole('status').filter({ hasText: /^Pushing to 2 terminals: [01] done$/ }),
      ).toBeVisible();
      await page.screenshot({
        path: test.info().outputPath('push-running-1280.png'),
        fullPage: true,
      });
      await expect(row('DSP-B')).toContainText('2/3 reading back', { timeout: 20_000 });
      // Then the proofs, as before.
      await expect(ui.pushRow('DSP-B')).toContainText('✔ checked in', { timeout: 60_000 });
      await expect(ui.pushRow('ENR-P')).toContainText('✔ checked in');
      await expect(running).toHaveCount(0);
    } finally {
      await slow.setFaults({});
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('a terminal proven earlier and then stopped is named offline in Diagnostics, in words', async () => {
    const ui = new ProofsPage(page);
    // DSP-B's push was proven (saved, read back, checked in) by the test before; now it stops.
    const gone = terminals['DSP-B@127.0.0.1']!;
    delete terminals['DSP-B@127.0.0.1'];
    await gone.stop();
    await ui.tab('Terminals').click();
    // Offline once silent for DISCOVERY_TIMEOUT (45 s by default).
    await expect(ui.terminalRow('DSP-B')).toContainText('offline', { timeout: 120_000 });
    const findings = await ui.diagnose('');
    const finding = findings
      .getByRole('alert')
      .filter({ hasText: 'DSP-B (127.0.0.1) is offline, though its push was proven' });
    await expect(finding).toContainText('offline since its last announce at');
    await expect(finding).toContainText(`saved, read back and checked in at ${central.url}`);
    await expect(finding).toContainText('Check that the terminal has power');
    await expect(findings).not.toContainText('Nothing looks wrong');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await finding.scrollIntoViewIfNeeded();
      // Nothing cut: each line of the finding lies within it.
      expect(await ui.cutInside(finding)).toEqual([]);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(width);
      await page.screenshot({
        path: test.info().outputPath(`offline-proven-${width}.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  // Last: it stops the central service.
  test('the live header turns red within 10 s after the central service stops', async () => {
    const ui = new ProofsPage(page);
    await ui.useCentral(central.url);
    // (Slower than 1 s on a busy test machine, the header says "answering slowly".)
    await expect(ui.header()).toContainText(
      /Central service answering(?: slowly)? · round trip \d+ ms/,
    );
    await central.stop();
    const stopped = Date.now();
    await expect(ui.header()).toContainText('Central service not answering', {
      timeout: 10_000,
    });
    expect(Date.now() - stopped).toBeLessThan(10_000);
    await page.screenshot({ path: test.info().outputPath('header-red-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: test.info().outputPath('header-red-390.png'), fullPage: true });
  });
});
