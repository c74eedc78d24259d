/**
 * The seed's first session, in one test, through the browser only, once in an English browser
 * and once in a Chinese one (issue 34: every word from the site's catalogs, a server error in
 * the browser's language, Chinese names all the way to the device and the display): svc_server started as
 * `npm start` starts it (node server/dist/platform/main.js, every worker on, SQLite in a fresh data dir,
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
import { countActions } from './support/actions';
import { expect, test as base, type Stack } from './fixtures';
import { expectNoSplitWords } from './support/checks';
import { demoRegion } from './support/faces';
import { withAnyNumber, wordsFor } from './support/words';
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

/** The session's own data, in the language of the browser that types it. */
const DATA = {
  en: {
    site: 'Head office',
    door: 'Main entrance',
    gate: 'Entrance gate',
    person: 'Ada Lovelace',
    idNumber: 'AL-1815',
  },
  'zh-CN': {
    site: '总部',
    door: '正门',
    gate: '正门闸机',
    person: '王小明',
    idNumber: 'WXM-1815',
  },
} as const;

for (const lng of ['en', 'zh-CN'] as const) {
  test.describe(`in ${lng === 'en' ? 'an English' : 'a Chinese'} browser`, () => {
    test.use({ locale: lng === 'en' ? 'en-US' : 'zh-CN' });

    test('the first session: sign in, organization, spaces, terminals, panel, device, person, live event', async ({
      page,
      firstRun,
    }) => {
      test.setTimeout(180_000);
      const w = await wordsFor(lng);
      const data = DATA[lng];
      const { url, device } = firstRun;
      const { enrollment, display } = firstRun.terminals;
      const exact = (name: string) => ({ name, exact: true });

      // 1. Sign in with the password the first start wrote into the data dir, as the README says.
      const initial = readFileSync(
        path.join(firstRun.dataDir, 'initial-admin-password.txt'),
        'utf8',
      ).trim();
      const actions = await countActions(page);
      // The site comes from svc_server itself (its security headers), not from nginx.
      const served = await page.goto('/');
      expect(served?.headers()['content-security-policy']).toContain("default-src 'self'");
      await expect(page.getByRole('heading', { name: w('login.title'), level: 1 })).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('lang', lng);
      await page.getByLabel(w('login.username'), { exact: true }).fill('admin');
      await page.getByLabel(w('login.password'), { exact: true }).fill(initial);
      await page.getByRole('button', exact(w('login.submit'))).click();

      // 2. Forced password change: nothing else is reachable until it is done.
      await expect(
        page.getByRole('heading', { name: w('shell.changeYourPassword') }),
      ).toBeVisible();
      const password = `First-session-${Date.now()}-ok!`;
      await page.getByLabel(w('password.current'), { exact: true }).fill(initial);
      await page.getByLabel(w('password.new'), { exact: true }).fill(password);
      await page.getByLabel(w('password.confirm'), { exact: true }).fill(password);
      await page.getByRole('button', exact(w('password.submit'))).click();
      await expect(page.getByTestId('current-username')).toHaveText('admin');

      // 3. The organization and the administrator's own permissions, in the browser's language.
      const nav = page.getByRole('navigation', { name: w('shell.sections') });
      for (const key of ['dashboard', 'spaces', 'system', 'devices', 'people', 'events', 'sync']) {
        await expect(nav.getByRole('link', exact(w(`nav.${key}`)))).toBeVisible();
      }
      await nav.getByRole('link', exact(w('nav.organizations'))).click();
      await expect(
        page.getByRole('heading', { name: w('nav.organizations'), level: 1 }),
      ).toBeVisible();
      const orgs = page.getByRole('list', { name: w('nav.organizations') });
      await expect(orgs.getByTestId('organization-row')).toHaveCount(1);
      await expect(orgs.getByTestId('organization-row')).toContainText(w('organizations.yours'));
      await expect(page.getByTestId('own-role')).toHaveText(w('roles.superadmin'));
      await expect(page.getByTestId('own-permissions')).toContainText(
        w('organizations.can.manage'),
      );

      // 4. Spaces: a site and a door inside it; the same name twice is refused by the server,
      //    which answers with a code and the name: the page says it in the browser's language.
      await nav.getByRole('link', exact(w('nav.spaces'))).click();
      await expect(page.getByRole('heading', { name: w('nav.spaces'), level: 1 })).toBeVisible();
      const dialog = page.getByRole('dialog');
      const newSpace = async (name: string) => {
        await dialog.getByRole('textbox', exact(w('spaces.name'))).fill(name);
        await dialog.getByRole('button', exact(w('spaces.create'))).click();
      };
      const details = (name: string) =>
        page.getByRole('region', { name: w('spaces.section', { name }) });
      await page.getByRole('button', exact(w('spaces.new'))).click();
      await newSpace(data.site);
      await expect(details(data.site)).toBeVisible();
      await page.getByRole('button', exact(w('spaces.new'))).click();
      await newSpace(data.site);
      // English shows the server's own sentence; Chinese the shared text of its code and name.
      await expect(dialog.getByRole('alert')).toContainText(
        lng === 'en'
          ? `A space named "${data.site}" already exists`
          : w('shared:errors.duplicate_space_name', { name: data.site }),
      );
      // The refused name is still typed: Esc asks before throwing it away.
      await page.keyboard.press('Escape');
      await page.getByRole('button', exact(w('discard.discard'))).click();
      await page.getByRole('button', exact(w('spaces.addInside'))).click();
      await newSpace(data.door);
      await expect(details(data.door)).toContainText(`${data.site} › ${data.door}`);

      // 5. The terminals appear in System Configuration, heard over UDP.
      await nav.getByRole('link', exact(w('nav.system'))).click();
      await expect(page.getByRole('heading', { name: w('nav.system'), level: 1 })).toBeVisible();
      const terminals = page.getByRole('table', { name: w('system.terminals') });
      const terminal = (id: string) =>
        terminals.locator(`[data-testid="terminal-row"][data-id="${id}"]`);
      const enr = terminal(enrollment.id);
      const dsp = terminal(display.id);
      await expect(enr).toContainText(w('system.enrollment'));
      await expect(dsp).toContainText(w('system.display'));
      // Its column headers whole: "最后签到", not "最后签" over "到" (outside eyes).
      await expectNoSplitWords(page, 'System Configuration');

      // 6. Push the central address to both: saved, read back, checked in.
      await page
        .getByRole('checkbox', { name: w('system.selectTerminal', { id: enrollment.id }) })
        .check();
      await page
        .getByRole('checkbox', { name: w('system.selectTerminal', { id: display.id }) })
        .check();
      await page.getByRole('textbox', exact(w('system.central'))).fill(url);
      await page.getByRole('button', exact(w('system.push', { count: 2 }))).click();
      for (const row of [enr, dsp]) {
        const result = row.getByTestId('terminal-push');
        await expect(result).toContainText(w('system.saved'));
        await expect(result).toContainText(w('system.readBack', { url }));
        await expect(result).toContainText(w('system.checkedIn'));
        await expect(row.getByTestId('terminal-central')).toHaveText(url);
      }

      // 7. The panel address: the simulated display's receiver; saved, then Test connection.
      const receiver = `${display.url}/api/recognition`;
      const panelMessage = page.getByTestId('panel-message');
      await page.getByRole('textbox', exact(w('panel.url'))).fill(receiver);
      await page.getByRole('button', exact(w('panel.save'))).click();
      await expect(panelMessage).toHaveText(w('panel.saved'));
      await page.getByRole('button', exact(w('panel.test'))).click();
      await expect(panelMessage).toHaveText(
        withAnyNumber(w('panel.answered', { url: receiver, ms: 987654 }), 987654),
      );
      await expect.poll(() => display.lastEvent()?.device.sn).toBe('SVC-CONNECTION-TEST');

      // 8. Register the device in the door's space; the key is shown once and handed to it.
      await nav.getByRole('link', exact(w('nav.devices'))).click();
      await expect(page.getByRole('heading', { name: w('nav.devices'), level: 1 })).toBeVisible();
      await page.getByRole('button', exact(w('devices.register'))).click();
      await dialog.getByRole('textbox', exact(w('devices.col.sn'))).fill(device.sn);
      await dialog.getByRole('textbox', exact(w('devices.name'))).fill(data.gate);
      await dialog.getByRole('textbox', exact(w('devices.address'))).fill(device.url);
      await dialog.getByRole('combobox', exact(w('devices.space'))).click();
      await page.getByRole('option', { name: new RegExp(data.door) }).click();
      await dialog.getByRole('button', exact(w('devices.registerSubmit'))).click();
      await expect(dialog).toContainText(w('devices.keyOnce', { sn: device.sn }));
      const keyBox = page.getByTestId('device-key');
      const key = ((await keyBox.textContent()) ?? '').trim();
      expect(key.length).toBeGreaterThan(20);
      await dialog.getByRole('button', exact(w('devices.keyStored'))).click();
      await expect(keyBox).toHaveCount(0);
      await device.setConnection({ key, centralUrl: url });
      // Its heartbeats (every second, with the key) make it online.
      const deviceRow = page.locator(`[data-testid="device-row"][data-sn="${device.sn}"]`);
      await expect(deviceRow).toContainText(w('devices.online'), { timeout: 30_000 });

      // 9. A person with a photo in the door's space.
      await nav.getByRole('link', exact(w('nav.people'))).click();
      await page.getByRole('link', exact(w('people.new'))).click();
      const form = page.getByRole('form', { name: w('events.person') });
      await form.getByRole('textbox', exact(w('people.name'))).fill(data.person);
      await form.getByRole('textbox', exact(w('people.idNumber'))).fill(data.idNumber);
      await form.getByLabel(w('people.spaces'), { exact: true }).click();
      await page.getByRole('option', exact(`${data.site} › ${data.door}`)).click();
      await page.keyboard.press('Escape');
      // A real face: the face check is on, as with `npm start` (a woman of face-api's demo photos).
      const photo = await demoRegion(1, 1375, 103, 406, 458);
      await form
        .locator('input[type="file"]')
        .setInputFiles({ name: 'ada.png', mimeType: 'image/png', buffer: photo });
      await form.getByRole('button', exact(w('spaces.create'))).click();

      // 10. The person page shows the push to the device succeeded (live, no reload).
      await expect(page.getByRole('heading', { name: data.person, level: 1 })).toBeVisible();
      const syncRows = page.getByRole('region', { name: w('nav.devices') }).getByTestId('sync-row');
      await expect(syncRows).toHaveCount(1);
      await expect(syncRows.first()).toContainText(data.gate);
      await expect(syncRows.first().getByTestId('sync-state')).toHaveText(
        w('sync.state.succeeded'),
        { timeout: 30_000 },
      );
      const personId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
      expect(device.person(personId)).toBeDefined();

      // 11. The device recognizes the person: the event appears live on Events and the display.
      await nav.getByRole('link', exact(w('nav.events'))).click();
      await expect(page.getByTestId('live-status')).toHaveText(w('live.live'), { timeout: 15_000 });
      const sent = await device.emitEvent({ personId, withSnapshot: true });
      // PROTOCOL §3: an event taken in answers 202.
      expect(sent.status).toBe(202);
      // The site lists the server's record id (the 202's `id`); the panel gets the device's eventId.
      const recordId = z.object({ id: z.string() }).parse(sent.body).id;
      const row = page.locator(`[data-testid="event-row"][data-event-id="${recordId}"]`);
      await expect(row).toBeVisible();
      await expect(row.getByTestId('event-person')).toHaveText(data.person);
      await expect(row.getByTestId('event-device')).toContainText(data.gate);
      await expect(row.getByTestId('event-space')).toHaveText(data.door);
      // The browser's own format in English; "2026/11/28 14:05" in Chinese (same time zone).
      const shownTime = await page.evaluate(
        ([iso, chinese]) =>
          chinese
            ? new Intl.DateTimeFormat('zh-CN', {
                year: 'numeric',
                month: '2-digit',
                day: '2-digit',
                hour: '2-digit',
                minute: '2-digit',
                hourCycle: 'h23',
              }).format(new Date(iso))
            : new Date(iso).toLocaleString(),
        [sent.event.time, lng === 'zh-CN'] as const,
      );
      await expect(row.getByTestId('event-time')).toHaveText(shownTime);
      await expect(row.getByTestId('event-delivery')).toHaveText(w('delivery.state.delivered'));

      await expect.poll(() => display.lastEvent()?.eventId, { timeout: 15_000 }).toBe(sent.eventId);
      const shown = display.lastEvent();
      expect(shown?.person).toEqual({ id: personId, name: data.person });
      expect(shown?.device).toEqual({ sn: device.sn, name: data.gate });
      expect(Date.parse(shown?.time ?? '')).toBe(Date.parse(sent.event.time));

      // Issue 30: from first sign-in to a recognized person in at most 80 manual actions.
      const count = await actions();
      test.info().annotations.push({
        type: 'manual actions',
        description: `${count.total} (${count.clicks} clicks, ${count.fields} fields typed, ${count.keys} keys)`,
      });
      console.log(`first session (${lng}): ${JSON.stringify(count)}`);
      expect(count.total).toBeLessThanOrEqual(80);

      // 12. The dashboard's checklist ticked every step it can see done, in the seed's order.
      await nav.getByRole('link', exact(w('nav.dashboard'))).click();
      const steps = page.getByTestId('checklist-step');
      await expect(steps).toHaveCount(10);
      await expect(steps.first()).toContainText(w('checklist.service.label'));
      await expect(steps.last()).toContainText(w('checklist.recognition.label'));
      for (const step of [
        'service',
        'organization',
        'spaces',
        'terminals',
        'central',
        'panel',
        'devices',
        'people',
        'recognition',
      ]) {
        await expect(steps.filter({ hasText: w(`checklist.${step}.label`) })).toHaveAttribute(
          'data-done',
          'true',
        );
      }
      // Only the first administrator so far: that step still says what to do, and links there.
      const admins = steps.filter({ hasText: w('checklist.administrators.label') });
      await expect(admins).toHaveAttribute('data-done', 'false');
      await expect(admins).toContainText(
        w('checklist.next', { hint: w('checklist.administrators.hint') }),
      );
      await admins.getByRole('link', exact(w('checklist.administrators.label'))).click();
      await expect(
        page.getByRole('heading', { name: w('nav.administrators'), level: 1 }),
      ).toBeVisible();
    });
  });
}
