import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import type { TerminalHandle } from '@svc/sim';
import {
  startCentral,
  testDiscoveryPort,
  type CentralProcess,
} from '../src/testing/central-process.js';
import { loopbackTerminal } from '../src/testing/sim.js';
import { AdminApi } from './support/admin-api.js';
import { ConsolePage } from './support/console-page.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';
import { totpCode } from './support/totp.js';

/** The row's painted background, to tell a highlighted row from an ordinary one. */
type Styles = { getComputedStyle(el: unknown): { backgroundColor: string } };
const background = (row: Locator): Promise<string> =>
  row.evaluate((el) => (globalThis as unknown as Styles).getComputedStyle(el).backgroundColor);

/**
 * The console and the central service it works with: a sign-in that asks for the second factor,
 * and the terminals that announce another central address than that one.
 */
test.describe('the central service the console works with', () => {
  const discoveryPort = testDiscoveryPort(41200);
  let central: CentralProcess;
  let admin: AdminApi;
  let runDir: string;
  const terminals: TerminalHandle[] = [];
  const consoles: ConsoleProcess[] = [];
  const open = async () => {
    const c = await consoleOn(discoveryPort);
    consoles.push(c);
    return c;
  };

  test.beforeAll(async () => {
    runDir = mkdtempSync(path.join(os.tmpdir(), 'svc-central-e2e-'));
    central = await startCentral({ discoveryPort, env: { SVC_PUSH_WORKER: '0' } });
    admin = new AdminApi(central.url);
    await admin.signIn(central.username, central.password);
  });
  test.afterAll(async () => {
    for (const c of consoles) await c.stop();
    for (const t of terminals) await t.stop();
    await central?.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  test('an account with two-factor sign-in is asked for its code, and a wrong code is said so', async ({
    page,
  }) => {
    const password = 'quiet meadow signal 58';
    await admin.createAdmin('theo', password);
    // Theo enrolls an authenticator app in the site (the first code turns it on).
    const theo = new AdminApi(central.url);
    await theo.signIn('theo', password);
    const { secret } = (await theo.call('POST', '/api/auth/2fa/setup', { password })) as {
      secret: string;
    };
    await theo.call('POST', '/api/auth/2fa/enable', {
      code: totpCode(secret, Date.now() - 30_000),
    });

    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url);
    await page.getByLabel('User name').fill('theo');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Two-factor code');
    await expect(code).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'second factor' })).toContainText(
      'authenticator app',
    );
    await expect(page.getByText(/^Signed in as/)).toHaveCount(0);

    // A wrong code: refused in words, and the form stays as typed for the next try.
    const now = totpCode(secret);
    await code.fill(now === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(
      page.getByRole('alert').filter({ hasText: 'the code is wrong or was used already' }),
    ).toBeVisible();
    // The header keeps the refusal's reason too.
    await expect(page.getByRole('status', { name: 'Central service status' })).toContainText(
      'refused: the code is wrong or was used already',
    );
    await expect(page.getByText(/^Signed in as/)).toHaveCount(0);
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue(password);

    await code.fill(totpCode(secret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('Signed in as theo (administrator)')).toBeVisible();
    await expect(page.getByLabel('Two-factor code')).toHaveCount(0);
  });

  test('a terminal announcing another central address than the one in use is highlighted', async ({
    page,
  }) => {
    // A loopback address where nothing answers: the terminals' check-ins stay on this machine.
    const elsewhere = 'http://127.0.0.2:9';
    for (const [id, saved] of [
      ['ENR-SAME', central.url],
      ['ENR-ELSE', elsewhere],
    ] as const) {
      const t = await loopbackTerminal(discoveryPort, id, 'enrollment');
      terminals.push(t);
      // Saved on the terminal itself, as an earlier installation left it.
      const res = await fetch(`${t.url}/api/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ centralUrl: saved }),
      });
      expect(res.status).toBe(200);
    }

    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url);
    const same = ui.terminalRow('ENR-SAME');
    const other = ui.terminalRow('ENR-ELSE');
    await expect(other).toContainText(`announces another central address: ${elsewhere}`);
    await expect(same).toContainText(central.url);
    await expect(same).not.toContainText('announces another central address');
    await expect(other).toHaveAttribute('data-flagged', 'true');
    await expect(same).not.toHaveAttribute('data-flagged');
    expect(await background(other)).not.toBe(await background(same));

    // Working with the other central service turns the highlight around.
    await ui.useCentral(elsewhere);
    await expect(same).toContainText(`announces another central address: ${central.url}`);
    await expect(other).not.toContainText('announces another central address');
    await expect(same).toHaveAttribute('data-flagged', 'true');
    await expect(other).not.toHaveAttribute('data-flagged');
  });
});
