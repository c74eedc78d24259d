import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { startTerminal, type TerminalHandle } from '@svc/sim';
import { expect, test as base, withStack, type Stack } from './fixtures';
import { signIn } from './data-pages';
import { HomePage } from './pages';
import { SystemPage } from './site-pages';
import { AdminApi, tag, type Account } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

/** A UDP port nothing else holds right now (the server and the simulators then share it). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

interface DiscoveryFixtures {
  lan: {
    stack: Stack;
    admin: Account;
    /** Enrollment, display, and an enrollment terminal with the management key `key`. */
    terminals: TerminalHandle[];
    key: string;
    operator: Account;
  };
}

/**
 * A stack of its own with LAN discovery on a free UDP port, and two simulated terminals
 * (enrollment and display) announcing to it on 127.255.255.255 every second.
 */
const test = base.extend<DiscoveryFixtures>({
  lan: [
    async ({ nginxBin, runDir, playwright }, use) => {
      const discoveryPort = await freeUdpPort();
      const t = tag().toUpperCase();
      await withStack(
        nginxBin,
        mkdtempSync(path.join(runDir, 'lan-')),
        async (stack) => {
          const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
            username: stack.adminUsername,
            password: stack.adminPassword,
          });
          const operator = await api.createOperator(playwright);
          const common = {
            bindAddress: '127.0.0.1',
            httpPort: 0,
            discoveryPort,
            broadcastAddresses: ['127.255.255.255'],
            announceIntervalMs: 1_000,
            checkinIntervalMs: 0,
          };
          const key = randomBytes(12).toString('base64url');
          const terminals = [
            await startTerminal({ ...common, id: `ENR-${t}`, kind: 'enrollment' }),
            await startTerminal({ ...common, id: `DSP-${t}`, kind: 'display' }),
            await startTerminal({
              ...common,
              id: `KEY-${t}`,
              kind: 'enrollment',
              managementKey: key,
            }),
          ];
          try {
            await use({ stack, admin: account, terminals, key, operator });
          } finally {
            for (const terminal of terminals) await terminal.stop();
            await api.dispose();
          }
        },
        {
          SVC_DISCOVERY_WORKER: '1',
          DISCOVERY_PORT: String(discoveryPort),
          DISCOVERY_HTTP_BASE_URL: 'http://127.0.0.1:8000',
        },
      );
    },
    { timeout: 90_000 },
  ],
  site: async ({ lan }, use) => {
    await use(lan.stack);
  },
});

test('System Configuration: terminals heard live, central address pushed, saved / read back / checked in', async ({
  page,
  lan,
}) => {
  const [enrollment, display] = lan.terminals;
  await signIn(page, lan.admin, '/system');
  const system = new SystemPage(page);
  await expect(system.heading).toBeVisible();
  await expect(system.advertised).toHaveText('http://127.0.0.1:8000');
  // A loopback address cannot be reached by a real terminal: the page says so.
  await expect(system.warnings).toBeVisible();

  const enr = system.terminal(enrollment!.id);
  const dsp = system.terminal(display!.id);
  await expect(enr).toContainText('Enrollment');
  await expect(dsp).toContainText('Display');
  await expect(enr).toContainText(new URL(enrollment!.url).port);
  await expect(enr.getByTestId('terminal-checkin')).toHaveText('Never');

  await system.select(enrollment!.id).check();
  await system.select(display!.id).check();
  await system.centralAddress.fill('not a URL');
  await expect(system.centralAddress).toHaveAttribute('aria-invalid', 'true');
  await system.centralAddress.fill(lan.stack.serverURL);
  await expect(system.centralAddress).not.toHaveAttribute('aria-invalid', 'true');
  await system.push.click();

  for (const row of [enr, dsp]) {
    const result = row.getByTestId('terminal-push');
    await expect(result).toContainText('Saved');
    await expect(result).toContainText(`Read back ${lan.stack.serverURL}`);
    // As the person sees it: the address as written (not upper-cased), whole, not cut short.
    const readBack = result.getByTestId('push-read-back');
    expect(await readBack.innerText()).toBe(`Read back ${lan.stack.serverURL}`);
    expect(await readBack.evaluate((b) => b.scrollWidth <= b.clientWidth + 1)).toBe(true);
    await expect(result).toContainText('Checked in');
    await expect(row.getByTestId('terminal-checkin')).not.toHaveText('Never');
    // The next announce carries the new address.
    await expect(row.getByTestId('terminal-central')).toHaveText(lan.stack.serverURL);
  }
  expect(enrollment!.config().centralUrl).toBe(lan.stack.serverURL);

  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('System Configuration: a terminal with a management key is pushed with the key typed for it', async ({
  page,
  lan,
}) => {
  const keyed = lan.terminals[2]!;
  await signIn(page, lan.admin, '/system');
  const system = new SystemPage(page);
  const row = system.terminal(keyed.id);
  await system.select(keyed.id).check();
  await system.centralAddress.fill(lan.stack.serverURL);
  await system.push.click();
  await expect(row.getByTestId('terminal-push')).toContainText('it has a management key');
  expect(keyed.config().centralUrl).not.toBe(lan.stack.serverURL);

  await system.terminalKey.fill('has a space');
  await expect(system.terminalKey).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page.getByText('Use letters, digits and symbols, without spaces (as printed on the terminal).'),
  ).toBeVisible();
  await system.terminalKey.fill(lan.key);
  await system.push.click();
  await expect(row.getByTestId('terminal-push')).toContainText('Saved');
  await expect(row.getByTestId('terminal-push')).toContainText('Checked in');
  expect(keyed.config().centralUrl).toBe(lan.stack.serverURL);
  // The key was for that push only.
  await expect(system.terminalKey).toHaveValue('');
});

test('System Configuration: the panel route is saved and tested; an operator sees no push or save controls', async ({
  page,
  lan,
}) => {
  await signIn(page, lan.admin, '/system');
  const system = new SystemPage(page);
  await system.panelUrl.fill('ftp://nowhere');
  await expect(system.panelUrl).toHaveAttribute('aria-invalid', 'true');
  const receiver = `${lan.terminals[1]!.url}/api/recognition`;
  await system.panelUrl.fill(receiver);
  await system.savePanel.click();
  await expect(system.panelMessage).toHaveText('Panel route saved.');
  await page.reload();
  await expect(system.panelUrl).toHaveValue(receiver);

  // Test connection: the simulated display receives the test event and answers.
  await system.testPanel.click();
  await expect(system.panelMessage).toContainText(`The panel at ${receiver} answered in`);
  await expect.poll(() => lan.terminals[1]!.lastEvent()?.device.sn).toBe('SVC-CONNECTION-TEST');
  // A refusing display: the reason is shown.
  await lan.terminals[1]!.setFaults({ status500: true });
  await system.testPanel.click();
  await expect(system.panelMessage).toContainText('Test failed:');
  await expect(system.panelMessage).toContainText('500');
  await lan.terminals[1]!.setFaults({});
  await expectAccessible(page);

  await new HomePage(page).signOut();
  await signIn(page, lan.operator, '/system');
  await expect(system.terminal(lan.terminals[0]!.id)).toBeVisible();
  await expect(system.push).toHaveCount(0);
  await expect(page.getByRole('checkbox')).toHaveCount(0);
  await expect(system.savePanel).toHaveCount(0);
  await expect(system.testPanel).toHaveCount(0);
  await expectAccessible(page);
});
