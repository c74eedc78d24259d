/**
 * The seed's first session, in one test, through the browser only: svc_server started as
 * `npm start` starts it (node server/dist/main.js, every worker on, SQLite in a fresh data dir,
 * no ADMIN_INITIAL_PASSWORD, serving web/dist itself — no nginx), with simulated terminals
 * announcing over real UDP and a simulated device and display from tools/sim. The test talks
 * to the server only through the page; the simulators make their own calls (heartbeats,
 * check-ins, the recognition event), and the test hands the device its key as a technician
 * would. Its only look at the server besides the page is the readiness probe every stack here
 * uses (`GET /api/heartbeat` until the migrations are done), as a health check would.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startDevice, startTerminal, type DeviceHandle, type TerminalHandle } from '@svc/sim';
import { heartbeatResponse } from '@svc/shared';
import { z } from 'zod';
import { expect, test as base, type Stack } from './fixtures';
import { EventsListPage, PersonDetailPage, PersonFormPage } from './data-pages';
import { ChangePasswordPage, LoginPage } from './pages';
import { demoRegion } from './support/faces';
import { DevicesPage, OrganizationsPage, SpacesPage, SystemPage } from './site-pages';
import { freeUdpPort } from './support/udp';
import { freePort, startProcess, waitUntilReady } from './support/processes';
import { repoRoot, serverEntry } from './support/env';

/**
 * SQLite by default (what `npm start` uses). With SVC_TEST_MYSQL_HOST set (docs/testing.md),
 * the server gets a fresh MariaDB database of its own instead, dropped afterwards.
 */
function mariadbDatabase(): { env: Record<string, string>; drop: () => void } | undefined {
  const host = process.env.SVC_TEST_MYSQL_HOST;
  if (host === undefined || host === '') return undefined;
  const port = process.env.SVC_TEST_MYSQL_PORT ?? '3306';
  const user = process.env.SVC_TEST_MYSQL_USER ?? 'root';
  const password = process.env.SVC_TEST_MYSQL_PASSWORD ?? '';
  const database = `svc_first_${process.pid}_${Date.now()}`;
  return {
    env: {
      DB_HOST: host,
      DB_PORT: port,
      DB_USER: user,
      DB_PASSWORD: password,
      DB_ROOT_PASSWORD: password,
      DB_DATABASE: database,
    },
    drop: () => {
      spawnSync(
        'mysql',
        ['-h', host, '-P', port, '-u', user, '-e', `DROP DATABASE IF EXISTS ${database}`],
        { env: { ...process.env, MYSQL_PWD: password }, stdio: 'ignore' },
      );
    },
  };
}

interface FirstRun {
  url: string;
  dataDir: string;
  terminals: { enrollment: TerminalHandle; display: TerminalHandle };
  device: DeviceHandle;
  logs: () => string;
}

const test = base.extend<{ firstRun: FirstRun }>({
  firstRun: [
    async ({ runDir }, use) => {
      const dir = mkdtempSync(path.join(runDir, 'first-'));
      const dataDir = path.join(dir, 'data');
      const discoveryPort = await freeUdpPort();
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const mariadb = mariadbDatabase();
      const server = startProcess('svc_server', process.execPath, [serverEntry], {
        cwd: repoRoot,
        logFile: path.join(dir, 'server.log'),
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          TMPDIR: process.env.TMPDIR,
          LANG: process.env.LANG,
          HTTP_HOST: '127.0.0.1',
          HTTP_PORT: String(port),
          DATA_DIR: dataDir,
          DISCOVERY_PORT: String(discoveryPort),
          LOG_LEVEL: 'warn',
          ...mariadb?.env,
        },
      });
      const started: { stop: () => Promise<void> }[] = [];
      try {
        await waitUntilReady(
          `svc_server on ${url}`,
          async () => {
            const response = await fetch(`${url}/api/heartbeat`, {
              signal: AbortSignal.timeout(2_000),
            });
            const parsed = heartbeatResponse.safeParse(await response.json());
            return parsed.success && parsed.data.state === 1;
          },
          server,
          60_000,
        );
        const common = {
          bindAddress: '127.0.0.1',
          httpPort: 0,
          discoveryPort,
          broadcastAddresses: ['127.255.255.255'],
          announceIntervalMs: 1_000,
          checkinIntervalMs: 0,
        };
        const enrollment = await startTerminal({
          ...common,
          id: 'ENR-FIRST-1',
          kind: 'enrollment',
        });
        started.push(enrollment);
        const display = await startTerminal({ ...common, id: 'DSP-FIRST-1', kind: 'display' });
        started.push(display);
        // Powered on but not yet registered: no key, no central address.
        const device = await startDevice({
          sn: 'GATE-FIRST-1',
          bindAddress: '127.0.0.1',
          heartbeatIntervalMs: 1_000,
        });
        started.push(device);
        await use({
          url,
          dataDir,
          terminals: { enrollment, display },
          device,
          logs: () => `--- svc_server (${server.logFile}) ---\n${server.tail()}\n`,
        });
      } finally {
        for (const node of started.reverse()) await node.stop();
        await server.stop();
        mariadb?.drop();
      }
    },
    { timeout: 90_000 },
  ],
  site: async ({ firstRun }, use) => {
    const stack: Stack = {
      webURL: firstRun.url,
      serverURL: firstRun.url,
      adminUsername: 'admin',
      // Generated by the server on its first start; the test reads it from the data dir.
      adminPassword: '',
      logs: firstRun.logs,
    };
    await use(stack);
  },
});

test('the first session: sign in, organization, spaces, terminals, panel, device, person, live event', async ({
  page,
  firstRun,
}) => {
  test.setTimeout(180_000);
  const { url, device } = firstRun;
  const { enrollment, display } = firstRun.terminals;

  // 1. Sign in with the password the first start wrote into the data dir, as the README says.
  const initial = readFileSync(
    path.join(firstRun.dataDir, 'initial-admin-password.txt'),
    'utf8',
  ).trim();
  const login = new LoginPage(page);
  // The site comes from svc_server itself (its security headers), not from nginx.
  const served = await page.goto('/');
  expect(served?.headers()['content-security-policy']).toContain("default-src 'self'");
  await expect(login.heading).toBeVisible();
  await login.signIn('admin', initial);

  // 2. Forced password change: nothing else is reachable until it is done.
  const change = new ChangePasswordPage(page);
  await expect(change.heading).toBeVisible();
  const password = `First-session-${Date.now()}-ok!`;
  await change.change(initial, password);
  await expect(page.getByTestId('current-username')).toHaveText('admin');

  // 3. The organization and the administrator's own permissions.
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await nav.getByRole('link', { name: 'Organizations' }).click();
  const orgs = new OrganizationsPage(page);
  await expect(orgs.heading).toBeVisible();
  await expect(orgs.rows).toHaveCount(1);
  await expect(orgs.rows.first()).toContainText('Your organization');
  await expect(orgs.ownRole).toHaveText('Super administrator');
  await expect(orgs.ownPermissions).toContainText('Manage spaces, devices, people');

  // 4. Spaces: a site and a door inside it.
  await nav.getByRole('link', { name: 'Spaces' }).click();
  const spaces = new SpacesPage(page);
  await expect(spaces.heading).toBeVisible();
  await spaces.newSpace.click();
  await spaces.fill('Head office');
  await expect(spaces.details('Head office')).toBeVisible();
  await spaces.action('Add space inside').click();
  await spaces.fill('Main entrance');
  await expect(spaces.details('Main entrance')).toContainText('Head office › Main entrance');

  // 5. The terminals appear in System Configuration, heard over UDP.
  await nav.getByRole('link', { name: 'System Configuration' }).click();
  const system = new SystemPage(page);
  await expect(system.heading).toBeVisible();
  const enr = system.terminal(enrollment.id);
  const dsp = system.terminal(display.id);
  await expect(enr).toContainText('Enrollment');
  await expect(dsp).toContainText('Display');

  // 6. Push the central address to both: saved, read back, checked in.
  await system.select(enrollment.id).check();
  await system.select(display.id).check();
  await system.centralAddress.fill(url);
  await system.push.click();
  for (const row of [enr, dsp]) {
    const result = row.getByTestId('terminal-push');
    await expect(result).toContainText('Saved');
    await expect(result).toContainText(`Read back ${url}`);
    await expect(result).toContainText('Checked in');
    await expect(row.getByTestId('terminal-central')).toHaveText(url);
  }

  // 7. The panel address: the simulated display's receiver; saved, then Test connection.
  const receiver = `${display.url}/api/recognition`;
  await system.panelUrl.fill(receiver);
  await system.savePanel.click();
  await expect(system.panelMessage).toHaveText('Panel route saved.');
  await system.testPanel.click();
  await expect(system.panelMessage).toContainText(`The panel at ${receiver} answered in`);
  await expect.poll(() => display.lastEvent()?.device.sn).toBe('SVC-CONNECTION-TEST');

  // 8. Register the device in the door's space; the key is shown once and handed to the device.
  await nav.getByRole('link', { name: 'Devices' }).click();
  const devices = new DevicesPage(page);
  await expect(devices.heading).toBeVisible();
  await devices.register.click();
  await devices.dialog.getByRole('textbox', { name: 'Serial number' }).fill(device.sn);
  await devices.dialog.getByRole('textbox', { name: 'Name' }).fill('Entrance gate');
  await devices.dialog.getByRole('textbox', { name: 'Address' }).fill(device.url);
  await devices.dialog.getByRole('combobox', { name: 'Space' }).click();
  await page.getByRole('option', { name: /Main entrance/ }).click();
  await devices.dialog.getByRole('button', { name: 'Register' }).click();
  await expect(devices.dialog.getByText('This is the only time the key')).toBeVisible();
  const key = ((await devices.key.textContent()) ?? '').trim();
  expect(key.length).toBeGreaterThan(20);
  await devices.dialog.getByRole('button', { name: 'I have stored the key' }).click();
  await expect(devices.key).toHaveCount(0);
  await device.setConnection({ key, centralUrl: url });
  // Its heartbeats (every second, with the key) make it online.
  await expect(devices.row(device.sn)).toContainText('Online', { timeout: 30_000 });

  // 9. A person with a photo in the door's space.
  await nav.getByRole('link', { name: 'People' }).click();
  await page.getByRole('link', { name: 'New person' }).click();
  const form = new PersonFormPage(page);
  await form.name.fill('Ada Lovelace');
  await form.idNumber.fill('AL-1815');
  await form.chooseSpace('Head office › Main entrance');
  // A real face: the face check is on, as with `npm start` (a woman of face-api's demo photos).
  const photo = await demoRegion(1, 1375, 103, 406, 458);
  await form.photo.setInputFiles({ name: 'ada.png', mimeType: 'image/png', buffer: photo });
  await form.create.click();

  // 10. The person page shows the push to the device succeeded (live, no reload).
  const person = new PersonDetailPage(page);
  await expect(person.heading('Ada Lovelace')).toBeVisible();
  await expect(person.syncRows).toHaveCount(1);
  await expect(person.syncRows.first()).toContainText('Entrance gate');
  await expect(person.syncRows.first().getByTestId('sync-state')).toHaveText('succeeded', {
    timeout: 30_000,
  });
  const personId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  expect(device.person(personId)).toBeDefined();

  // 11. The device recognizes her: the event appears live on Events and on the display.
  await nav.getByRole('link', { name: 'Events' }).click();
  const events = new EventsListPage(page);
  await expect(events.live).toHaveText('Live', { timeout: 15_000 });
  const sent = await device.emitEvent({ personId, withSnapshot: true });
  // PROTOCOL §3: an event taken in answers 202.
  expect(sent.status).toBe(202);
  // The site lists the server's record id (the 202's `id`); the panel gets the device's eventId.
  const recordId = z.object({ id: z.string() }).parse(sent.body).id;
  const row = events.row(recordId);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('event-person')).toHaveText('Ada Lovelace');
  await expect(row.getByTestId('event-device')).toContainText('Entrance gate');
  await expect(row.getByTestId('event-space')).toHaveText('Main entrance');
  const shownTime = await page.evaluate((iso) => new Date(iso).toLocaleString(), sent.event.time);
  await expect(row.getByTestId('event-time')).toHaveText(shownTime);
  await expect(row.getByTestId('event-delivery')).toHaveText('Delivered');

  await expect.poll(() => display.lastEvent()?.eventId, { timeout: 15_000 }).toBe(sent.eventId);
  const shown = display.lastEvent();
  expect(shown?.person).toEqual({ id: personId, name: 'Ada Lovelace' });
  expect(shown?.device).toEqual({ sn: device.sn, name: 'Entrance gate' });
  expect(Date.parse(shown?.time ?? '')).toBe(Date.parse(sent.event.time));
});
