import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { TerminalHandle } from '@svc/sim';
import {
  startCentral,
  type CentralProcess,
  testDiscoveryPort,
} from '../src/testing/central-process.js';
import { loopbackTerminal } from '../src/testing/sim.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';

/**
 * The console as a technician in China meets it: a zh-CN browser, so the console speaks
 * Simplified Chinese from the first screen to the report step, with no English of its own
 * left; the switch to English is kept across a reload. `CONSOLE_SCREENSHOTS_DIR` set: the
 * acceptance tab is saved there at 1280 and 390 px (docs/screenshots/zh-CN/).
 */
test.describe('the console in Simplified Chinese', () => {
  const discoveryPort = testDiscoveryPort(37000);
  let central: CentralProcess;
  let terminal: TerminalHandle;
  let consoleProc: ConsoleProcess;

  test.beforeAll(async () => {
    central = await startCentral({ discoveryPort, env: { SVC_PUSH_WORKER: '0' } });
    terminal = await loopbackTerminal(discoveryPort, 'ENR-ZH', 'enrollment');
    consoleProc = await consoleOn(discoveryPort);
  });
  test.afterAll(async () => {
    await consoleProc?.stop();
    await terminal?.stop();
    await central?.stop();
  });

  /** Words the console's English screens use; none may show in a zh-CN session. */
  const ENGLISH =
    /\b(Terminals|Diagnostics|Acceptance|Central service|Sign in|Probe now|Push|proven|not run|passed|failed|Run |Finish|Handover|Layer|Language|pending)\b/;

  async function noEnglish(page: Page): Promise<void> {
    const text = await page.locator('body').innerText();
    // Names and codes are kept as they are: the simulator's terminal names, ids, addresses.
    const words = text.replace(/svc-sim (enrollment|display) \S+/g, '');
    expect(words).not.toMatch(ENGLISH);
  }

  test('from the first screen to the report step in Chinese; English once chosen, kept', async ({
    browser,
  }) => {
    const context = await browser.newContext({
      locale: 'zh-CN',
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    await page.goto(consoleProc.url);
    await expect(page.getByRole('heading', { name: 'svc 控制台' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await expect(page.getByRole('tab', { name: '终端' })).toBeVisible();

    // The central service, a refused sign-in in the header, then the sign-in.
    await page.getByLabel('中心服务地址', { exact: true }).fill(central.url);
    await page.getByRole('button', { name: '使用此中心服务' }).click();
    const header = page.getByRole('status', { name: '中心服务状态' });
    await expect(header).toContainText(/中心服务(?:正常应答|应答缓慢) · 往返 \d+ 毫秒/);
    await page.getByLabel('用户名').fill(central.username);
    await page.getByLabel('密码', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect(header).toContainText('被拒绝：用户名或密码错误');
    await page.getByLabel('密码', { exact: true }).fill(central.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect(page.getByText(`已登录：${central.username}（超级管理员）`)).toBeVisible();

    // The terminal list and a push with its proofs (the rule of a bad address in Chinese).
    const row = page.getByRole('table', { name: '终端' }).getByRole('row').filter({
      hasText: 'ENR-ZH',
    });
    await expect(row).toContainText('录入终端');
    await expect(row).toContainText('在线');
    await expect(row).toContainText('尚未下发');
    await page.getByLabel('选择 ENR-ZH').check();
    await page.getByLabel('要下发的中心服务地址').fill('http://10.0.0.1/path');
    await page.getByRole('button', { name: '下发到所选的 1 台' }).click();
    await expect(
      page.getByText('请输入 http://主机 或 http://主机:端口，后面不要再有其他内容。'),
    ).toBeVisible();
    await page.getByLabel('要下发的中心服务地址').fill(central.url);
    await page.getByRole('button', { name: '下发到所选的 1 台' }).click();
    await expect(page.getByLabel('ENR-ZH 的核验')).toContainText('✔ 保存✔ 回读', {
      timeout: 60_000,
    });
    await expect(page.getByLabel('核验汇总')).toHaveText(
      /^1 台中 \d 台已核验$|^\d+ 台中 \d+ 台已核验$/,
    );
    await noEnglish(page);

    // Diagnostics: the finding and what to do, in Chinese.
    await page.getByRole('tab', { name: '诊断' }).click();
    await page.getByLabel('终端地址（可选，见终端标签）').fill('10.1.2.3');
    await page.getByRole('button', { name: '执行诊断' }).click();
    const findings = page.getByRole('region', { name: '诊断结果' });
    await expect(findings).toContainText('本机没有任何网络接口位于 10.1.2.3 所在的子网');
    await expect(findings).toContainText('广播不能跨越路由器');
    await noEnglish(page);

    // Acceptance: layers not run, one run, the report step asking about the others.
    await page.getByRole('tab', { name: '验收' }).click();
    await expect(page.getByRole('button', { name: /服务\s*未执行/ }).first()).toBeVisible();
    await page.getByRole('button', { name: /中心服务\s*未执行/ }).click();
    const layer = page.getByRole('region', { name: '检查层：中心服务' });
    await layer.getByRole('button', { name: '执行“中心服务”检查' }).click();
    await expect(layer.getByLabel('“中心服务”的依据')).toContainText('✔ 心跳状态：1');
    await expect(page.getByRole('button', { name: /中心服务\s*通过/ })).toBeVisible();
    const shots = process.env.CONSOLE_SCREENSHOTS_DIR;
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, 'console-acceptance.png') });
    }
    await page.getByRole('button', { name: /验收报告/ }).click();
    const report = page.getByRole('region', { name: '验收报告' });
    await report.getByLabel('实施人员').fill('王工程师');
    await report.getByLabel('现场').fill('北门');
    await report.getByRole('button', { name: '完成验收' }).click();
    const ask = page.getByRole('alertdialog', { name: '不含这些层，直接完成' });
    await expect(ask).toContainText('以下检查层从未执行');
    await ask.getByRole('button', { name: '不含这些层，直接完成' }).click();
    await expect(report.getByLabel('报告结果')).toContainText('验收未通过：8 层中 1 层通过');
    await expect(report.getByText('已记录到中心服务')).toBeVisible();
    await expect(report).not.toContainText(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    await noEnglish(page);
    // On a phone the steps are a picker: Chinese punctuation in its items.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByLabel('步骤').locator('option').nth(2)).toHaveText('3. 中心服务：通过');
    await page.setViewportSize({ width: 1280, height: 800 });
    if (shots) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(shots, 'console-report-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // English, chosen on the header's switch: at once, and kept across a reload.
    await page.getByRole('radiogroup', { name: '语言', exact: true }).getByText('English').click();
    await expect(page.getByRole('tab', { name: 'Terminals' })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Central service status' })).toContainText(
      'Central service answering',
    );
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Terminals' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await context.close();
  });
});
