import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { formatMessage } from '@svc/shared';
import { openNodeUdpSocket } from '@svc/shared/udp';
import type { DeviceHandle, TerminalHandle } from '@svc/sim';
import { startNginx, type RunningNginx } from '../../web/tests/support/stack';
import { findNginx } from '../../web/tests/support/env';
import { demoRegion } from '../../web/tests/support/faces';
import {
  startCentral,
  type CentralProcess,
  testDiscoveryPort,
} from '../src/testing/central-process.js';
import { LOOPBACK_BROADCAST, loopbackDevice, loopbackTerminal } from '../src/testing/sim.js';
import { AdminApi } from './support/admin-api.js';
import { ConsolePage } from './support/console-page.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';

const run = promisify(execFile);

/** axe-core's violations, as rule and element, so a failure reads in one line each. */
async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/** One `central` datagram (PROTOCOL §1) to everything bound on the loopback discovery port. */
async function broadcastCentral(port: number, url: string): Promise<void> {
  const socket = openNodeUdpSocket({ reuseAddr: false, broadcast: true });
  await socket.bind(0, '127.0.0.1');
  const datagram = JSON.stringify({ svc: 'discovery', v: 1, type: 'central', url, name: 'svc' });
  await socket.send(Buffer.from(datagram), port, LOOPBACK_BROADCAST);
  await socket.close();
}

test.describe('the console end to end, through its browser shell', () => {
  const discoveryPort = testDiscoveryPort(31000);
  let central: CentralProcess;
  let nginx: RunningNginx;
  let consoleProc: ConsoleProcess;
  let admin: AdminApi;
  let device: DeviceHandle;
  const terminals: TerminalHandle[] = [];
  let runDir: string;

  test.beforeAll(async () => {
    runDir = mkdtempSync(path.join(os.tmpdir(), 'svc-console-e2e-'));
    central = await startCentral({
      discoveryPort,
      env: { SVC_PUSH_WORKER: '1', HEARTBEAT_TIMEOUT: '60' },
    });
    nginx = await startNginx({
      nginxBin: findNginx()!,
      runDir,
      upstream: new URL(central.url).host,
    });
    for (const [id, kind] of [
      ['ENR-E2E', 'enrollment'],
      ['DSP-E2E', 'display'],
    ] as const) {
      terminals.push(await loopbackTerminal(discoveryPort, id, kind));
    }
    device = await loopbackDevice('DEV-E2E');
    consoleProc = await consoleOn(discoveryPort, { CONSOLE_SITE_URL: nginx.url });
    admin = new AdminApi(central.url);
    await admin.signIn(central.username, central.password);
  });
  test.afterAll(async () => {
    await consoleProc?.stop();
    for (const t of terminals) await t.stop();
    await device?.stop();
    await nginx?.process.stop();
    await central?.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  test('from an empty server to a complete eight-layer report recorded at central', async ({
    page,
  }) => {
    // The site's own setup, as its administrator does it in the site.
    const orgs = (await admin.call('GET', '/api/organizations')) as { items: { name: string }[] };
    const organization = orgs.items[0]!.name;
    const space = (await admin.call('POST', '/api/spaces', { name: 'Gate A' })) as { id: string };
    const jane = (await admin.call('POST', '/api/people', {
      name: 'Jane Roe',
      idNumber: 'E2E-1234567890',
      spaceIds: [space.id],
    })) as { id: string };
    // Real faces: the central service checks every photo (FACE_CHECK on, as it ships).
    const face = await demoRegion(1, 1375, 103, 406, 458, 'jpeg');
    await admin.call('PUT', `/api/people/${jane.id}/photo`, face, 'image/jpeg');
    const registered = (await admin.call('POST', '/api/devices', {
      sn: 'DEV-E2E',
      name: 'Gate A device',
      baseUrl: device.url,
      spaceId: space.id,
    })) as { key: string };
    await device.setConnection({ key: registered.key, centralUrl: central.url });
    const display = terminals[1]!;
    await admin.call('POST', '/api/panel/route', {
      mode: 'local',
      url: `${display.url}/api/recognition`,
    });

    const ui = new ConsolePage(page);
    await page.goto(consoleProc.url);
    await expect(page).toHaveURL(/\/$/); // the token is gone from the address bar
    // The central address picked from a `central` datagram heard on the discovery port. The
    // service sends those only as unicast replies to a terminal's announce (PROTOCOL §1), which
    // reach the terminal's own socket, so the test plays a reply that arrives at the console.
    await broadcastCentral(discoveryPort, central.url);
    await ui.pickHeardCentral(central.url);
    await ui.signIn(central.username, central.password);

    // Find terminals: the live list, with the interface each was heard on.
    await expect(ui.terminalRow('ENR-E2E')).toContainText('lo (127.0.0.0/8)');
    await expect(ui.terminalRow('DSP-E2E')).toContainText('display');
    await page.getByLabel('Filter terminals').fill('DSP');
    await expect(ui.terminalRow('ENR-E2E')).toHaveCount(0);
    await page.getByLabel('Filter terminals').fill('');
    const csv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csvText = readFileSync(await (await csv).path(), 'utf8');
    expect(csvText.split('\r\n')[0]).toBe(
      'kind,id,name,model,version,address,port,heardOn,central,lastSeen,online',
    );
    expect(csvText).toContain('enrollment,ENR-E2E');
    expect(await axe(page)).toEqual([]);

    // Push with proof (once the central service has heard them too, so it can issue tokens).
    await expect
      .poll(async () =>
        ((await admin.call('GET', '/api/discovery/nodes')) as { id: string }[])
          .map((n) => n.id)
          .sort(),
      )
      .toEqual(['DSP-E2E', 'ENR-E2E']);
    await page.getByLabel('Select ENR-E2E').check();
    await page.getByLabel('Select DSP-E2E').check();
    // A bad address is refused by the shared rule before anything is sent.
    await page.getByLabel('Central address to push').fill('http://10.0.0.1/path');
    await page.getByRole('button', { name: 'Push to 2 selected' }).click();
    // The shared catalog's sentence (shared/src/messages.ts), as the site says it too.
    await expect(page.getByText(formatMessage('url_central'))).toBeVisible();
    await expect(page.getByRole('table', { name: 'Push results' })).toHaveCount(0);
    await page.getByLabel('Central address to push').fill(central.url);
    await page.getByLabel('Panel address (displays)').fill(`${central.url}/panel`);
    await page.getByRole('button', { name: 'Push to 2 selected' }).click();
    for (const id of ['ENR-E2E', 'DSP-E2E']) {
      await expect(ui.pushRow(id)).toContainText('saved');
      await expect(ui.pushRow(id)).toContainText('read back');
      await expect(ui.pushRow(id)).toContainText(/checked in at/);
      await expect(ui.pushRow(id)).not.toContainText('not ');
    }

    // Guided acceptance.
    await ui.tab('Acceptance').click();
    const next = () => page.getByRole('button', { name: 'Next layer' }).click();
    await ui.runLayer('Services');
    await ui.confirm('Services', 'Ann Tech', 'deploy/status.sh: all services up');
    await next();
    await expect(await ui.runLayer('Web site')).toContainText('✔ GET /login: 200');
    await next();
    await expect(await ui.runLayer('Central service')).toContainText('✔ heartbeat state: 1');
    await next();
    const data = page.getByLabel('Data layer');
    await data.getByLabel('Organization').fill(organization);
    await data.getByLabel('Space').fill('Gate A');
    await data.getByLabel('Person (name or ID number)').fill('Jane Roe');
    await expect(await ui.runLayer('Data')).toContainText('✔ person: Jane Roe, ID ••••••••••7890');
    await expect(data).toContainText('✔ photo readable: 200 image/jpeg');
    await next();
    const discovery = await ui.runLayer('Discovery');
    await expect(discovery).toContainText('✔ DSP-E2E at central');
    // Terminals (two) and recognition devices (one, DEV-E2E) are counted apart.
    await expect(discovery).toContainText('✔ terminals heard by this console: 2');
    await expect(discovery).toContainText('✔ terminals listed by the central service: 2');
    await expect(discovery).toContainText('✔ recognition devices online (counted apart): 1');
    await next();
    await expect(await ui.runLayer('Terminal configuration')).toContainText(
      '✔ ENR-E2E: saved / read back / checked in',
    );
    await next();
    const sync = page.getByLabel('Synchronization layer');
    await sync.getByLabel('Space for the test person').fill('Gate A');
    const photo = path.join(runDir, 'test-person.jpg');
    writeFileSync(photo, await demoRegion(4, 1205, 46, 290, 464, 'jpeg'));
    const chooser = page.waitForEvent('filechooser');
    await sync.getByLabel("Test person's photo (JPEG)").click();
    await (await chooser).setFiles(photo);
    await expect(await ui.runLayer('Synchronization')).toContainText('✔ device DEV-E2E: succeeded');
    await expect(sync).toContainText('✔ test person erased at central');
    await next();
    // One real recognition: the device recognizes Jane; central delivers it to the display.
    await device.emitEvent({ personId: jane.id, score: 0.97 });
    await expect.poll(() => display.lastEvent()?.person?.id ?? null).toBe(jane.id);
    await expect(await ui.runLayer('Recognition loop')).toContainText('✔ same person');
    await ui.confirm('Recognition loop', 'Ann Tech', 'Jane recognized at Gate A');
    for (const title of [
      'Services',
      'Web site',
      'Central service',
      'Data',
      'Discovery',
      'Terminal configuration',
      'Synchronization',
      'Recognition loop',
    ]) {
      await expect(
        page.getByRole('button', { name: new RegExp(`${title}\\s*passed`) }),
      ).toBeVisible();
    }
    await next();

    // The handover report.
    const report = page.getByLabel('Handover report');
    await report.getByLabel('Technician').fill('Ann Tech');
    await report.getByLabel('Site').fill('North gate');
    await report.getByRole('button', { name: 'Finish acceptance' }).click();
    await expect(report.getByText('Recorded at central as')).toBeVisible();
    const digest = (await report.locator('code').first().textContent())!;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const save = async (label: string) => {
      const download = page.waitForEvent('download');
      await report.getByRole('button', { name: label }).click();
      return readFileSync(await (await download).path());
    };
    const json = await save('Download JSON');
    expect(createHash('sha256').update(json).digest('hex')).toBe(digest);
    const parsed = JSON.parse(json.toString()) as { summary: { passed: number; layers: number } };
    expect(parsed.summary).toMatchObject({ layers: 8, passed: 8, failed: 0, pending: 0 });
    for (const secret of [central.password, registered.key, 'E2E-123456']) {
      expect(json.toString()).not.toContain(secret);
    }
    const html = (await save('Download HTML')).toString();
    expect(html).toContain(digest);
    const pdfFile = path.join(runDir, 'report.pdf');
    writeFileSync(pdfFile, await save('Download PDF'));
    const { stdout } = await run('pdftotext', [pdfFile, '-']);
    expect(stdout).toContain('North gate');
    expect(stdout).toContain('Recognition loop: passed');
    expect(stdout).toContain('same person');
    expect(stdout).toContain('Confirmed by hand by Ann Tech');
    expect(stdout.replace(/\s/g, '')).toContain(digest);

    // The digest is in the central audit log, under the technician's session.
    const audit = (await admin.call('GET', '/api/audit?pageSize=50')) as {
      items: { action: string; target: { id: string } | null; summary: string }[];
    };
    const entry = audit.items.find((i) => i.action === 'acceptance.report');
    expect(entry?.target?.id).toBe(digest);
    expect(entry?.summary).toContain('8/8 layers passed');

    // Readable at a phone's width too, and accessible on every tab.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(report.getByRole('button', { name: 'Download PDF' })).toBeVisible();
    for (const tab of ['Terminals', 'Diagnostics', 'Acceptance'] as const) {
      await ui.tab(tab).click();
      expect(await axe(page)).toEqual([]);
    }

    // "Probe now": a terminal that stayed quiet since boot is listed once it answers the probe.
    const late = await loopbackTerminal(discoveryPort, 'LATE-E2E', 'enrollment', {
      announceIntervalMs: 0,
      faults: { mute: true }, // no boot announce
    });
    terminals.push(late);
    await late.setFaults({}); // unmuting sends nothing; only a probe makes it announce
    await page.setViewportSize({ width: 1280, height: 800 });
    await ui.tab('Terminals').click();
    await expect(ui.terminalRow('ENR-E2E')).toBeVisible();
    await expect(ui.terminalRow('LATE-E2E')).toHaveCount(0);
    await ui.probeNow();
    await expect(ui.terminalRow('LATE-E2E')).toContainText('online');
  });
});
