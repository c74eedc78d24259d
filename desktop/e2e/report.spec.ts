import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import type { TerminalHandle } from '@svc/sim';
import {
  startCentral,
  type CentralProcess,
  testDiscoveryPort,
} from '../src/testing/central-process.js';
import { loopbackTerminal } from '../src/testing/sim.js';
import { AdminApi } from './support/admin-api.js';
import { ConsolePage } from './support/console-page.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';

const run = promisify(execFile);

/**
 * The handover report as a site manager gets it: nothing secret in any of its three files,
 * never stale, a PDF to sign in the site's own script, and the session surviving a restart.
 */
test.describe('the handover report', () => {
  const discoveryPort = testDiscoveryPort(33000);
  let central: CentralProcess;
  let admin: AdminApi;
  let terminal: TerminalHandle;
  let runDir: string;
  const consoles: ConsoleProcess[] = [];
  const open = async (env: Record<string, string> = {}) => {
    const c = await consoleOn(discoveryPort, env);
    consoles.push(c);
    return c;
  };

  test.beforeAll(async () => {
    runDir = mkdtempSync(path.join(os.tmpdir(), 'svc-report-e2e-'));
    central = await startCentral({ discoveryPort, env: { SVC_PUSH_WORKER: '0' } });
    admin = new AdminApi(central.url);
    await admin.signIn(central.username, central.password);
    terminal = await loopbackTerminal(discoveryPort, 'ENR-RPT', 'enrollment');
  });
  test.afterAll(async () => {
    for (const c of consoles) await c.stop();
    await terminal?.stop();
    await central?.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  test('no secret the technician typed or the console handled is in the JSON, HTML or PDF', async ({
    page,
  }) => {
    // A passphrase a person chose (not shaped like a key: only its value gives it away), a
    // terminal key typed for a push, and a device key as the central service issues one.
    const password = 'violet harbor lantern quay 73';
    const terminalKey = 'mango-door-4417';
    const space = (await admin.call('POST', '/api/spaces', { name: 'Gate R' })) as { id: string };
    const { key: deviceKey } = (await admin.call('POST', '/api/devices', {
      sn: 'DEV-RPT',
      name: 'Gate R device',
      baseUrl: 'http://127.0.0.1:9',
      spaceId: space.id,
    })) as { key: string };
    await admin.createAdmin('tess', password);
    const planted = [password, terminalKey, deviceKey];
    const all = planted.join(' | ');

    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url, { username: 'tess', password });
    await expect(ui.terminalRow('ENR-RPT')).toBeVisible();
    await page.getByLabel('Select ENR-RPT').check();
    await page.getByLabel('Central address to push').fill(central.url);
    await page
      .getByLabel(/Terminal key/)
      .first()
      .fill(terminalKey);
    await page.getByRole('button', { name: /^Push to/ }).click();
    await expect(ui.pushRow('ENR-RPT')).toBeVisible();

    await ui.tab('Acceptance').click();
    await ui.runLayer('Services');
    const services = ui.layer('Services');
    await services.getByLabel('Confirmed by').fill(`Ann ${password}`);
    await services.getByLabel('Note').fill(`typed by mistake:\n${all}`);
    await services.getByRole('button', { name: 'Record confirmation' }).click();
    // Cut out when recorded: not even the session file on disk holds it.
    await expect(services.getByText('Confirmed by Ann [redacted] at')).toBeVisible();
    const data = await ui.openLayer('Data');
    await data.getByLabel('Organization').fill(password);
    await data.getByLabel('Space').fill(terminalKey);
    await data.getByLabel('Person (name or ID number)').fill(deviceKey);
    await ui.runLayer('Data');
    await ui.check('Terminal configuration');
    const report = await ui.finish(`Tess Tech 张 ${terminalKey}`, `North ${password}`, true);

    const json = (await ui.download(report, 'JSON')).toString();
    const html = (await ui.download(report, 'HTML')).toString();
    const pdfFile = path.join(runDir, 'planted.pdf');
    writeFileSync(pdfFile, await ui.download(report, 'PDF'));
    const { stdout: pdf } = await run('pdftotext', [pdfFile, '-']);
    expect(json).toContain('[redacted]');
    for (const [name, text] of [
      ['JSON', json],
      ['HTML', html],
      ['PDF', pdf],
    ] as const) {
      for (const secret of planted) {
        expect(text, `${name} holds a planted secret`).not.toContain(secret);
      }
    }
    // The central service keeps exactly this file, under the digest it computed itself.
    const digest = createHash('sha256').update(json).digest('hex');
    await expect(report.getByText('Recorded at central as')).toContainText(digest);
    const kept = (await admin.call('GET', `/api/acceptance/reports/${digest}`)) as {
      report: string;
    };
    expect(kept.report).toBe(json);
  });

  test('a report is outdated by a change after Finish and says what failed and what never ran', async ({
    page,
  }) => {
    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url, central);
    await ui.check('Central service');
    const data = await ui.openLayer('Data');
    // Empty required fields: each says so, and the layer is not run (no "'' not found").
    await data.getByRole('button', { name: 'Run Data check' }).click();
    await expect(data.getByText('Required: fill this in to run the check')).toHaveCount(3);
    await expect(data.getByLabel('Data evidence')).toHaveCount(0);
    await expect(data).not.toContainText('not found');
    await data.getByLabel('Organization').fill('No such organization');
    await expect(data.getByText('Required: fill this in to run the check')).toHaveCount(2);
    await data.getByLabel('Space').fill('No such space');
    await data.getByLabel('Person (name or ID number)').fill('Nobody');
    await ui.runLayer('Data');
    const report = await ui.finish('Tess Tech 张', 'North gate', true);
    const result = report.getByLabel('Report result');
    await expect(result).toContainText('1/8 layers passed');
    await expect(result).toContainText('failed: Data');
    await expect(result).toContainText('not run: Services, Web site, Discovery');
    await expect(report.getByRole('button', { name: 'Download PDF' })).toBeEnabled();

    // A layer run again after Finish: the old report is no longer what the layers say.
    await ui.check('Central service');
    await ui.openReport();
    await expect(report.getByText('Report outdated')).toBeVisible();
    await expect(report).toContainText('Central service was run again after Finish');
    // The old verdict is said as past, in grey: never as the site's current state.
    await expect(result).not.toContainText(/^NOT ACCEPTED: 1\/8 layers passed/);
    const was = result.getByText(
      /^Outdated since .+: this report said NOT ACCEPTED \(1\/8 layers passed\) when made at /,
    );
    await expect(was).toBeVisible();
    await expect(was).toHaveCSS('font-weight', '400');
    for (const format of ['HTML', 'JSON', 'PDF']) {
      await expect(report.getByRole('button', { name: `Download ${format}` })).toBeDisabled();
    }
    await ui.finish('Tess Tech 张', 'North gate', true);
    await expect(report.getByText('Report outdated')).toHaveCount(0);
    await expect(report.getByRole('button', { name: 'Download JSON' })).toBeEnabled();
  });

  test('a report not recorded at central says why, and is recorded from the step once signed in', async ({
    page,
  }) => {
    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url);
    const report = await ui.openReport();
    await report.getByLabel('Technician').fill('Tess');
    await report.getByLabel('Site').fill('North gate');
    await report.getByRole('button', { name: 'Finish acceptance' }).click();
    const ask = report.getByRole('alertdialog', { name: 'Finish without them' });
    await ask.getByRole('button', { name: 'Finish without them' }).click();
    await expect(report).toContainText(
      'Not recorded at central: not signed in at the central service: sign in',
    );
    await ui.signIn(central.username, central.password);
    const again = await ui.openReport();
    await again.getByRole('button', { name: 'Record at central' }).click();
    await expect(again.getByText('Recorded at central as')).toBeVisible();
    await expect(again.getByRole('button', { name: 'Record at central' })).toHaveCount(0);
  });

  test('the PDF prints the technician as typed, with page numbers', async ({ page }) => {
    const ui = new ConsolePage(page);
    await ui.start((await open()).url, central.url, central);
    await ui.check('Central service');
    const report = await ui.finish('Tess Tech 张', 'North gate — 北门', true);
    const file = path.join(runDir, 'cjk.pdf');
    writeFileSync(file, await ui.download(report, 'PDF'));
    const { stdout } = await run('pdftotext', [file, '-']);
    expect(stdout).toContain('Tess Tech 张');
    expect(stdout).toContain('North gate — 北门');
    expect(stdout).toContain('page 1 of');
    expect(stdout).toContain('Site manager');
  });

  test('in a Chinese (zh-CN) browser the HTML and PDF come in Simplified Chinese; the JSON keeps its keys', async ({
    browser,
  }) => {
    const context = await browser.newContext({ locale: 'zh-CN' });
    const page = await context.newPage();
    const c = await open();
    // A zh-CN browser: the console speaks Chinese, and so does this test.
    await page.goto(c.url);
    await page.getByLabel('中心服务地址', { exact: true }).fill(central.url);
    await page.getByRole('button', { name: '使用此中心服务' }).click();
    await page.getByLabel('用户名').fill(central.username);
    await page.getByLabel('密码', { exact: true }).fill(central.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect(page.getByText(`已登录：${central.username}`)).toBeVisible();
    const openReport = async () => {
      await page.getByRole('tab', { name: '验收' }).click();
      await page.getByRole('button', { name: /验收报告/ }).click();
      return page.getByRole('region', { name: '验收报告' });
    };
    await page.getByRole('tab', { name: '验收' }).click();
    await page.getByRole('button', { name: /中心服务\s*未执行/ }).click();
    const layer = page.getByRole('region', { name: '检查层：中心服务' });
    await layer.getByRole('button', { name: '执行“中心服务”检查' }).click();
    await expect(layer.getByLabel('“中心服务”的依据')).toContainText('心跳状态');
    const report = await openReport();
    await report.getByLabel('实施人员').fill('王工程师');
    await report.getByLabel('现场').fill('北门');
    await report.getByRole('button', { name: '完成验收' }).click();
    await page
      .getByRole('alertdialog', { name: '不含这些层，直接完成' })
      .getByRole('button', { name: '不含这些层，直接完成' })
      .click();
    await expect(report.getByText('已记录到中心服务')).toBeVisible();
    const download = async (format: 'HTML' | 'JSON' | 'PDF') => {
      const saved = page.waitForEvent('download');
      await report.getByRole('button', { name: `下载 ${format}` }).click();
      return readFileSync(await (await saved).path());
    };
    // The console's language is the report's, shown and changeable beside the downloads.
    const language = report.getByRole('radiogroup', { name: 'HTML 和 PDF 的语言' });
    await expect(language.getByRole('radio', { name: '简体中文' })).toBeChecked();
    const file = path.join(runDir, 'zh.pdf');
    writeFileSync(file, await download('PDF'));
    const { stdout } = await run('pdftotext', [file, '-']);
    expect(stdout).toContain('svc 验收报告');
    expect(stdout).toContain('王工程师');
    expect(stdout).toContain('中心服务：通过');
    for (const title of [
      '服务',
      '网站',
      '数据（人员、空间）',
      '终端发现',
      '终端配置',
      '人员同步',
    ]) {
      expect(stdout).toContain(`${title}：未执行`);
    }
    expect(stdout).toContain('现场负责人');
    expect(stdout).toContain('验收未通过');
    const html = (await download('HTML')).toString();
    expect(html).toContain('<html lang="zh-CN">');
    const json = JSON.parse((await download('JSON')).toString()) as {
      layers: { id: string; title: string }[];
    };
    expect(json.layers.map((l) => l.title)).toContain('Central service');

    // The technician's choice for the report wins over the console's, and is kept.
    await language.getByText('English').click();
    await expect(language.getByRole('radio', { name: 'English' })).toBeChecked();
    writeFileSync(file, await download('PDF'));
    expect((await run('pdftotext', [file, '-'])).stdout).toContain('Central service: passed');
    await page.reload();
    await expect(
      (await openReport())
        .getByRole('radiogroup', { name: 'HTML 和 PDF 的语言' })
        .getByRole('radio', { name: 'English' }),
    ).toBeChecked();
    await context.close();
  });

  test('layers, confirmations and the report survive a restart of the console', async ({
    page,
  }) => {
    const stateDir = path.join(runDir, 'state');
    const first = await open({ CONSOLE_STATE_DIR: stateDir });
    const ui = new ConsolePage(page);
    await ui.start(first.url, central.url, central);
    await ui.tab('Acceptance').click();
    await ui.runLayer('Services');
    await ui.confirm('Services', 'Ann Tech', 'status.sh: all up');
    await ui.check('Central service');
    const report = await ui.finish('Tess Tech', 'North gate', true);
    const digest = await report.locator('code').first().textContent();
    await first.stop();

    const second = await open({ CONSOLE_STATE_DIR: stateDir });
    await page.goto(second.url);
    await expect(page.getByText(`Central: ${central.url}`)).toBeVisible();
    await ui.tab('Acceptance').click();
    for (const title of ['Services', 'Central service']) {
      await expect(
        page.getByRole('button', { name: new RegExp(`${title}\\s*passed`) }),
      ).toBeVisible();
    }
    const services = await ui.openLayer('Services');
    await expect(services.getByText('Confirmed by Ann Tech at')).toBeVisible();
    const resumed = await ui.openReport();
    await expect(resumed.locator('code').first()).toHaveText(digest!);
    await expect(resumed.getByLabel('Report result')).toContainText('2/8 layers passed');
    await expect(resumed.getByRole('button', { name: 'Download JSON' })).toBeEnabled();
    // Who signed and where stay filled in, for the next Finish (outside eyes: emptied).
    await expect(page.getByRole('textbox', { name: 'Technician' })).toHaveValue('Tess Tech');
    await expect(page.getByRole('textbox', { name: 'Site' })).toHaveValue('North gate');
    // A name typed and not yet used survives a reload too.
    await page.getByRole('textbox', { name: 'Technician' }).fill('Tom Tech');
    await page.reload();
    await ui.tab('Acceptance').click();
    await ui.openReport();
    await expect(page.getByRole('textbox', { name: 'Technician' })).toHaveValue('Tom Tech');
    await expect(page.getByRole('textbox', { name: 'Site' })).toHaveValue('North gate');
  });
});
