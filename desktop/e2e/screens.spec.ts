import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type net from 'node:net';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { closedPort, testDiscoveryPort } from '../src/testing/central-process.js';
import { startCentralStub, type CentralStub } from '../src/testing/central-stub.js';
import { ConsolePage } from './support/console-page.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';

/**
 * The console's own screens at a laptop's and a phone's width, with no site behind them: a
 * central address where nothing answers, and a central service that refuses the sign-in.
 */

/** A central service that answers its heartbeat and refuses every sign-in. */
const refusingCentral = () =>
  startCentralStub(({ url }) =>
    url === '/api/auth/login'
      ? {
          status: 401,
          body: { error: { code: 'invalid_credentials', message: 'Wrong username or password.' } },
        }
      : undefined,
  );

/** What the check reads of an element (the e2e code is typed without the DOM's library). */
interface Measured {
  scrollWidth: number;
  clientWidth: number;
  scrollHeight: number;
  clientHeight: number;
  getBoundingClientRect(): { bottom: number; right: number };
  closest(selector: string): Measured | null;
}

/** True when the element's text runs past its own box or out of the header holding it. */
function clipped(status: Locator): Promise<boolean> {
  return status.evaluate((node) => {
    const el = node as unknown as Measured;
    const header = el.closest('header')!.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return (
      el.scrollWidth > el.clientWidth ||
      el.scrollHeight > el.clientHeight ||
      box.bottom > header.bottom + 0.5 ||
      box.right > header.right + 0.5
    );
  });
}

/**
 * A central service's discovery side: it answers each probe on the discovery port with a
 * `central` datagram (PROTOCOL §1), broadcast on loopback so the console's socket gets it.
 */
async function centralAnswering(port: number, url: string) {
  const socket = createSocket({ type: 'udp4', reuseAddr: true });
  let probes = 0;
  socket.on('message', (message) => {
    if (!message.toString().includes('"probe"')) return;
    probes += 1;
    const reply = JSON.stringify({ svc: 'discovery', v: 1, type: 'central', url, name: 'svc' });
    socket.send(reply, port, '127.255.255.255');
  });
  await new Promise<void>((resolve) => socket.bind(port, '0.0.0.0', resolve));
  socket.setBroadcast(true);
  return { probes: () => probes, close: () => new Promise<void>((r) => socket.close(r)) };
}

test.describe('the console screens at 1280 and 390 px', () => {
  let consoleProc: ConsoleProcess;
  let page: Page;
  let central: CentralStub;

  const discoveryPort = testDiscoveryPort(35000);
  let answering: Awaited<ReturnType<typeof centralAnswering>>;

  test.beforeAll(async ({ browser }) => {
    central = await refusingCentral();
    answering = await centralAnswering(discoveryPort, central.url);
    // A short discovery timeout: what a central service said is forgotten within seconds (longer
    // than the panel's 5 s look, as the default 45 s is).
    consoleProc = await consoleOn(discoveryPort, { DISCOVERY_TIMEOUT: '6' });
    page = await browser.newPage();
    await page.goto(consoleProc.url);
  });
  test.afterAll(async () => {
    await answering?.close();
    await page?.close();
    await consoleProc?.stop();
    await central?.close();
  });

  test('a central service heard on the LAN stays on offer: the console asks again', async () => {
    const heard = page.getByRole('button', { name: `Heard: ${central.url}` });
    await expect(heard).toBeVisible();
    // Forgotten after the 6 s timeout, the answer comes back because the console probes again.
    await expect.poll(() => answering.probes(), { timeout: 40_000 }).toBeGreaterThan(2);
    await expect(heard).toBeVisible();
  });

  for (const width of [1280, 390]) {
    test(`a wrong central address says what to check, whole, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 800 });
      const ui = new ConsolePage(page);
      const port = await closedPort();
      await ui.useCentral(`http://127.0.0.1:${port}`);
      const status = ui.header();
      await expect(status).toContainText(
        `Central service not answering: nothing answers at 127.0.0.1:${port} (connection refused)`,
      );
      expect(await clipped(status)).toBe(false);
      const advice = page.getByRole('alert').filter({ hasText: 'What to check' });
      await expect(advice).toContainText('Check the address and port');
      await expect(page.locator('body')).not.toContainText(/ECONNREFUSED|fetch failed|HTTP \d/);

      // The sign-in's password field is as wide as the user name's (the whole row on a phone).
      const user = (await page.getByLabel('User name').boundingBox())!;
      const password = (await page.getByLabel('Password', { exact: true }).boundingBox())!;
      // (Mantine draws the password's border on a wrapper: 2 px.)
      expect(Math.abs(password.width - user.width)).toBeLessThanOrEqual(2);
      if (width === 390) expect(password.width).toBeGreaterThan(300);
    });

    test(`the header gives the reason of a refused sign-in at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 800 });
      const ui = new ConsolePage(page);
      await ui.useCentral(central.url);
      await page.getByLabel('User name').fill('tess');
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'wrong' })).toHaveText(
        'the user name or password is wrong',
      );
      const status = ui.header();
      await expect(status).toContainText('refused: the user name or password is wrong');
      expect(await clipped(status)).toBe(false);
    });
  }

  test('another web server on the central address: the header and the panel say one thing', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    // What a technician meets when the port is held by something else (a router's page), or
    // by nginx whose central service behind it stopped.
    let gateway = false;
    const other = createServer((_req, res) => {
      res.writeHead(gateway ? 502 : 404, { 'content-type': 'text/html' });
      res.end(gateway ? '<h1>502 Bad Gateway</h1>' : '<h1>router login</h1>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const ui = new ConsolePage(page);
      const status = ui.header();
      const advice = page.getByRole('alert').filter({ hasText: 'What to check' });
      await ui.useCentral(`http://127.0.0.1:${port}`);
      await expect(status).toContainText(
        new RegExp(
          `No central service at this address: 127\\.0\\.0\\.1:${port} answers HTTP 404, not as an svc central service · round trip \\d+ ms`,
        ),
      );
      await expect(status).not.toContainText(/not answering|nothing answers/);
      await expect(advice).toContainText('Something else answers at this address');
      await expect(advice).not.toContainText('the central service runs on that host');

      // The live header looks again every few seconds: now nginx answers for a stopped service.
      gateway = true;
      await expect(status).toContainText(
        new RegExp(
          `Central service not answering behind its web server: the web server at 127\\.0\\.0\\.1:${port} answers HTTP 502 in its place · round trip \\d+ ms`,
        ),
      );
      await expect(advice).toContainText('the central service behind it does not answer');
      expect(await clipped(status)).toBe(false);
      await page.screenshot({ path: test.info().outputPath('header-other-server.png') });
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test('at 390 px a layer’s Run button is in view, and a picker moves between the steps', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    const ui = new ConsolePage(page);
    await ui.tab('Acceptance').click();
    await expect(page.getByRole('button', { name: 'Run Services check' })).toBeInViewport();
    const pick = page.getByLabel('Step');
    await pick.selectOption({ label: '3. Central service: not run' });
    await expect(page.getByRole('button', { name: 'Run Central service check' })).toBeInViewport();
    await pick.selectOption({ index: 8 });
    await expect(page.getByRole('button', { name: 'Finish acceptance' })).toBeVisible();
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(pick).toBeHidden();
  });
});
