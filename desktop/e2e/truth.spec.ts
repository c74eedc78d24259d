import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import type { TerminalHandle } from '@svc/sim';
import {
  startCentral,
  testDiscoveryPort,
  type CentralProcess,
} from '../src/testing/central-process.js';
import { loopbackTerminal } from '../src/testing/sim.js';
import { buildReport } from '../src/core/report/report.js';
import { reportHtml } from '../src/core/report/html.js';
import { ConsolePage } from './support/console-page.js';
import { consoleOn, type ConsoleProcess } from './support/console-process.js';

/** Each tone's mark and fill in the stepper, and its badge beside Run (mark and words). */
const TONES: Record<string, { mark: RegExp; fill: string; badge: RegExp; words: string }> = {
  passed: { mark: /^✔$/, fill: 'rgb(43, 122, 54)', badge: /^✔ passed$/i, words: 'passed' },
  warning: {
    mark: /^⚠$/,
    fill: 'rgb(242, 194, 0)',
    badge: /^⚠ passed with a warning$/i,
    words: 'passed with a warning',
  },
  failed: { mark: /^✘$/, fill: 'rgb(198, 40, 40)', badge: /^✘ failed$/i, words: 'failed' },
  waiting: {
    mark: /^…$/,
    fill: 'rgb(28, 85, 146)',
    badge: /^… waiting/i,
    words: 'waiting for a hand confirmation',
  },
  notRun: { mark: /^\d$/, fill: 'rgb(95, 102, 109)', badge: /^not run$/i, words: 'not run' },
};

/**
 * Issue 31's outside tester: the header and the sign-in say the latest truth, and the stepper
 * shows each layer's state in colour and mark. Screenshots at 1280 and 390 px.
 */
test.describe('a console that never looks better than it is', () => {
  const discoveryPort = testDiscoveryPort(43100);
  let central: CentralProcess;
  let consoleProc: ConsoleProcess;
  let page: Page;
  let terminal: TerminalHandle | undefined;

  test.beforeAll(async ({ browser }) => {
    central = await startCentral({ discoveryPort, env: { SVC_PUSH_WORKER: '0' } });
    consoleProc = await consoleOn(discoveryPort);
    // axe needs a page of a context this spec made.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await page.goto(consoleProc.url);
  });
  test.afterAll(async () => {
    await page?.context().close();
    await consoleProc?.stop();
    await terminal?.stop();
    await central?.stop();
  });

  const shoot = async (name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({
        path: test.info().outputPath(`${name}-${width}.png`),
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  test('a refusal leaves the header after a later success; another address drops the sign-in error', async () => {
    const ui = new ConsolePage(page);
    await ui.useCentral(central.url);
    await page.getByLabel('User name').fill(central.username);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const error = page.getByRole('alert').filter({ hasText: 'user name or password is wrong' });
    await expect(error).toBeVisible();
    await expect(ui.header()).toContainText('refused');
    await page.getByLabel('Password', { exact: true }).fill(central.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    // The latest truth at once, and still after the next heartbeats.
    await expect(ui.header()).not.toContainText('refused');
    await page.waitForTimeout(3_500);
    await expect(ui.header()).not.toContainText('refused');
    await expect(error).toHaveCount(0);
    await page.getByRole('button', { name: 'Sign out' }).click();

    // A refused sign-in at one address, then another address: its error does not follow.
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(error).toBeVisible();
    await shoot('sign-in-refused');
    await ui.useCentral('http://127.0.0.1:9');
    await expect(error).toHaveCount(0);
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');
    await shoot('other-address');
    // An address typed without http:// is taken as http:// (outside eyes: it was refused).
    const bare = central.url.replace(/^http:\/\//, '');
    await page.getByLabel('Central address', { exact: true }).fill(bare);
    await page.getByRole('button', { name: 'Use this central service' }).click();
    await expect(page.getByText(`Central: ${central.url}`)).toBeVisible();
    await expect(page.getByLabel('Central address', { exact: true })).toHaveValue(central.url);
  });

  test('the stepper: passed green ✔, warning yellow ⚠, failed red ✘, not run grey; axe agrees', async () => {
    const ui = new ConsolePage(page);
    // A terminal on this laptop, heard by the console and listed at central, never pushed to.
    terminal = await loopbackTerminal(discoveryPort, 'ENR-T', 'enrollment');
    await ui.tab('Terminals').click();
    await expect(ui.terminalRow('ENR-T')).toBeVisible();
    await ui.signIn(central.username, central.password);
    // Passed: the central service answers.
    await ui.check('Central service');
    // A warning: the terminal is heard and listed, but the central address is loopback.
    await ui.check('Discovery');
    // Failed: the terminal was never pushed to, so nothing proves its configuration.
    const failed = await ui.check('Terminal configuration');
    await expect(failed.getByLabel('Terminal configuration evidence')).toContainText(
      '✘ ENR-T: not pushed yet',
    );
    const steps = page.locator('.mantine-Stepper-step[data-tone]');
    await expect(steps).toHaveCount(8);
    const readSteps = () =>
      steps.evaluateAll((els) =>
        els.map((el) => {
          const e = el as unknown as {
            dataset: { tone: string };
            querySelector(s: string): { textContent: string | null } | null;
          };
          const icon = e.querySelector('.mantine-Stepper-stepIcon') as unknown as {
            textContent: string | null;
          };
          const style = (
            globalThis as unknown as {
              getComputedStyle(x: unknown): { backgroundColor: string };
            }
          ).getComputedStyle(icon);
          return { tone: e.dataset.tone, mark: icon.textContent, fill: style.backgroundColor };
        }),
      );
    // Steps 3, 5 and 6: the layers run above; the others never ran.
    const tones = ['notRun', 'notRun', 'passed', 'notRun', 'warning', 'failed', 'notRun', 'notRun'];
    // Polled: the stepper eases its fills in, so a read mid-transition sees a colour in between.
    await expect
      .poll(async () =>
        (await readSteps()).map((s) => ({
          tone: s.tone,
          mark: TONES[s.tone]!.mark.test(s.mark ?? ''),
          fill: s.fill,
        })),
      )
      .toEqual(tones.map((tone) => ({ tone, mark: true, fill: TONES[tone]!.fill })));
    const shown = {
      'Central service': 'passed',
      Discovery: 'warning',
      'Terminal configuration': 'failed',
    } as const;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [title, tone] of Object.entries(shown)) {
        // At 390 px a picker stands for the stepper; it names each layer's state in words.
        if (width === 390) {
          const picker = page.getByLabel('Step', { exact: true });
          const option = picker.locator('option').filter({ hasText: `. ${title}: ` });
          await expect(option).toHaveText(new RegExp(`^\\d\\. ${title}: ${TONES[tone]!.words}$`));
          await picker.selectOption((await option.getAttribute('value')) ?? '');
        } else {
          await ui.openLayer(title);
        }
        const badge = ui.layer(title).locator('.mantine-Badge-root');
        await expect(badge).toHaveText(TONES[tone]!.badge);
        await expect(badge).toHaveCSS('background-color', TONES[tone]!.fill);
        await expect(badge).toBeInViewport();
        await page.screenshot({
          path: test.info().outputPath(`stepper-${tone}-${width}.png`),
          fullPage: true,
        });
      }
      const { violations } = await new AxeBuilder({ page }).analyze();
      const serious = violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
      expect(
        serious.flatMap((v) =>
          v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
        ),
        `axe at ${width} px`,
      ).toEqual([]);
      if (width === 390) {
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
        ).toBeLessThanOrEqual(390);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('the HTML report keeps ids whole at 1280 px and breaks no word at 390 px', async () => {
    const { LAYERS } = await import('../src/core/acceptance/layers.js');
    const layers = LAYERS.map((l) => ({
      id: l.id,
      title: l.title,
      manualPrompt: l.manual,
      status: 'passed' as const,
      evidence: [
        {
          label: 'terminal DSP-CLONE-NORTH-GATE',
          value:
            'DSP-CLONE-NORTH-GATE saved http://192.168.10.20:8080, read back and checked in; ENR-P-0042 too',
          ok: true,
        },
      ],
      manual: null,
      ranAt: '2026-11-22T06:30:00.000Z',
      error: null,
    }));
    const report = buildReport(layers, {
      site: 'North gate',
      release: '0.1.0',
      host: 'laptop-field-07',
      centralUrl: 'http://192.168.10.2',
      technician: 'Tess Tech 张',
      createdAt: '2026-11-22T07:00:00.000Z',
    });
    // As a downloaded file opens: outside the console's origin and its CSP.
    await page.goto('about:blank');
    await page.setContent(reportHtml(report, 'ab'.repeat(32)));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      // Each id is on one line: its span is one line box tall.
      const ids = page.locator('span.id');
      for (const id of await ids.all()) {
        const rects = await id.evaluate(
          (el) => (el as unknown as { getClientRects(): unknown[] }).getClientRects().length,
        );
        expect(rects, (await id.textContent()) ?? '').toBe(1);
      }
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(width);
      await page.screenshot({
        path: test.info().outputPath(`report-${width}.png`),
        fullPage: true,
      });
    }
  });
});

test.describe('the browser shell when the console process stops', () => {
  const discoveryPort = testDiscoveryPort(43200);
  let central: CentralProcess;

  test.beforeAll(async () => {
    central = await startCentral({ discoveryPort, env: { SVC_PUSH_WORKER: '0' } });
  });
  test.afterAll(async () => {
    await central?.stop();
  });

  test('its tab turns the header red in words, never a frozen green', async ({ page }) => {
    const consoleProc = await consoleOn(discoveryPort);
    try {
      await ui(page).start(consoleProc.url, central.url);
      await expect(ui(page).header()).toContainText(/Central service answering/);
    } finally {
      await consoleProc.stop();
    }
    await expect(ui(page).header()).toContainText('The console itself is not answering', {
      timeout: 10_000,
    });
    await expect(ui(page).header()).not.toContainText('Central service answering');
    await expect(ui(page).header().locator('[data-health]')).toHaveAttribute('data-health', 'bad');
  });
});

const ui = (page: Page) => new ConsolePage(page);
