/**
 * Two site flows that need a stack of their own: a terminal id claimed from a second address
 * shows as a conflict on System Configuration, and an administrator clears a sign-in lockout.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { loginLockoutList } from '@svc/shared';
import { startTerminal, type TerminalHandle } from '@svc/sim';
import { expect, test as base, testWithOwnServer, withStack, type Stack } from './fixtures';
import { signIn } from './data-pages';
import { SystemPage } from './site-pages';
import { AdminApi, tag, type Account } from './support/admin-api';
import { expectAccessible } from './support/checks';

/** Another host on the LAN, as far as the server sees (the loopback /8 is all local). */
const IMPOSTOR_IP = '127.0.0.2';

/** A UDP port nothing else holds right now (the server and the simulators then share it). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

interface Lan {
  stack: Stack;
  admin: Account;
  discoveryPort: number;
  running: TerminalHandle[];
}

/** A stack with LAN discovery on a free UDP port; terminals the test starts are stopped after. */
function lanFixture(env: Record<string, string> = {}) {
  return async (
    {
      nginxBin,
      runDir,
      playwright,
    }: { nginxBin: string; runDir: string; playwright: Parameters<typeof AdminApi.signIn>[0] },
    use: (lan: Lan) => Promise<void>,
  ) => {
    const discoveryPort = await freeUdpPort();
    await withStack(
      nginxBin,
      mkdtempSync(path.join(runDir, 'lan-')),
      async (stack) => {
        const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
          username: stack.adminUsername,
          password: stack.adminPassword,
        });
        const running: TerminalHandle[] = [];
        try {
          await use({ stack, admin: account, discoveryPort, running });
        } finally {
          for (const terminal of running) await terminal.stop();
          await api.dispose();
        }
      },
      {
        SVC_DISCOVERY_WORKER: '1',
        DISCOVERY_PORT: String(discoveryPort),
        DISCOVERY_HTTP_BASE_URL: 'http://127.0.0.1:8000',
        ...env,
      },
    );
  };
}

const test = base.extend<{ lan: Lan }>({
  lan: [lanFixture(), { timeout: 90_000 }],
  site: async ({ lan }, use) => {
    await use(lan.stack);
  },
});

/** Terminals count as offline after 3 s of silence rather than 45. */
const testQuiet = base.extend<{ lan: Lan }>({
  lan: [lanFixture({ DISCOVERY_TIMEOUT: '3' }), { timeout: 90_000 }],
  site: async ({ lan }, use) => {
    await use(lan.stack);
  },
});

test('System Configuration: an impostor announcing a terminal’s id shows as its conflict', async ({
  page,
  lan,
}) => {
  const id = `ENR-${tag().toUpperCase()}`;
  const terminal = async (bindAddress: string, listenForProbes: boolean) => {
    const t = await startTerminal({
      id,
      kind: 'enrollment',
      bindAddress,
      httpPort: 0,
      discoveryPort: lan.discoveryPort,
      broadcastAddresses: ['127.255.255.255'],
      announceIntervalMs: 1_000,
      checkinIntervalMs: 0,
      listenForProbes,
    });
    lan.running.push(t);
    return t;
  };

  const real = await terminal('127.0.0.1', true);
  await signIn(page, lan.admin, '/system');
  const system = new SystemPage(page);
  const row = system.terminal(id);
  await expect(row).toContainText(`127.0.0.1:${real.port}`);
  // No other claimant yet: the Conflict column (shown when the server reports it) says so.
  await expect(system.terminals.getByRole('columnheader', { name: 'Conflict' })).toBeVisible();
  await expect(row.getByTestId('terminal-conflict')).toHaveText('—');

  const impostor = await terminal(IMPOSTOR_IP, false);
  await impostor.announceNow();
  await expect(
    row.getByRole('cell').getByText(`Also heard from ${IMPOSTOR_IP}:${impostor.port}`),
  ).toBeVisible();
  // The terminal keeps its own address: the impostor did not move it.
  await expect(row).toContainText(`127.0.0.1:${real.port}`);
  await expect(system.terminals.locator('[data-testid="terminal-row"]')).toHaveCount(1);
  await expectAccessible(page);
});

testQuiet(
  'System Configuration: a terminal gone silent stays listed as offline, with when it was last heard, until removed',
  async ({ page, lan }) => {
    const id = `DSP-${tag().toUpperCase()}`;
    // It announces once at start, and answers no probe: silent from then on.
    const once = await startTerminal({
      id,
      kind: 'display',
      bindAddress: '127.0.0.1',
      httpPort: 0,
      discoveryPort: lan.discoveryPort,
      broadcastAddresses: ['127.255.255.255'],
      announceIntervalMs: 0,
      checkinIntervalMs: 0,
      listenForProbes: false,
    });
    lan.running.push(once);
    await signIn(page, lan.admin, '/system');
    const system = new SystemPage(page);
    const row = system.terminal(id);
    await expect(row).toContainText(`127.0.0.1:${once.port}`);

    // Silent for longer than DISCOVERY_TIMEOUT: still listed, said to be offline, and when.
    await expect(row).toHaveAttribute('data-online', 'false');
    await expect(row.getByTestId('terminal-seen')).toContainText('Offline');
    await expect(row.getByTestId('terminal-seen')).toContainText(/last heard \d+ seconds? ago/);
    await expect(system.terminalsEmpty).toHaveCount(0);
    await expect(row.getByRole('checkbox')).toHaveCount(0);
    await expectAccessible(page);

    // Removed by the administrator, after a question naming what follows.
    await row.getByRole('button', { name: `Remove ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove terminal ${id}?` });
    await expect(dialog).toContainText('needs the central address pushed again');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Remove terminal' }).click();
    await expect(row).toHaveCount(0);
    await expect(system.terminalsEmpty).toBeVisible();
  },
);

testWithOwnServer(
  'Administrators: a locked-out account is shown locked and its lockout is cleared',
  async ({ page, site, playwright }) => {
    const { api, account: admin } = await AdminApi.signIn(playwright, site.serverURL, {
      username: site.adminUsername,
      password: site.adminPassword,
    });
    const clerk = await api.createOperator(playwright);
    // Ten wrong passwords from a client without the account's device cookie lock it out.
    const stranger = await AdminApi.anonymous(playwright, site.serverURL);
    try {
      for (let i = 0; i < 10; i += 1) {
        const status = await stranger.tryLogin(clerk.username, `wrong-${tag()}`);
        expect(status).toBe(401);
      }
      expect(await stranger.tryLogin(clerk.username, clerk.password)).toBe(429);
    } finally {
      await stranger.dispose();
    }
    const lockedUsernames = async () =>
      loginLockoutList
        .parse(await api.get('/api/auth/lockouts'))
        .items.filter((l) => l.scope === 'username')
        .map((l) => l.username);
    expect(await lockedUsernames()).toContain(clerk.username);

    await signIn(page, admin, '/administrators');
    const row = page.locator(
      `[data-testid="administrator-row"][data-username="${clerk.username}"]`,
    );
    await expect(row.getByTestId('administrator-state')).toContainText('Locked out');
    await page.getByRole('button', { name: `Actions for ${clerk.username}` }).click();
    await page.getByRole('menuitem', { name: 'Clear sign-in lockout' }).click();
    await expect(row.getByTestId('administrator-state')).not.toContainText('Locked out');
    await expect(row.getByTestId('administrator-state')).toContainText('Active');
    await expectAccessible(page);

    await expect.poll(lockedUsernames).not.toContain(clerk.username);
    // The right password now works from a fresh client.
    const fresh = await AdminApi.anonymous(playwright, site.serverURL);
    try {
      expect(await fresh.tryLogin(clerk.username, clerk.password)).toBe(200);
    } finally {
      await fresh.dispose();
      await api.dispose();
    }
  },
);
