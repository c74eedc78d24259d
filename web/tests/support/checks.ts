/** Checks every page test runs: axe-core (no serious or critical violation), 390 px layout. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * `what` names the page and state in a failure's message.
 *
 * axe runs in the page itself (legacy mode: the site has no frames, so nothing is left out) and
 * aggregates violations only. The default mode opens a blank page and injects axe a second time
 * for every check, which made it two to three times slower; the rules and the nodes checked are
 * the same (a11y.spec.ts plants a violation to show the check still finds one).
 */
export async function expectAccessible(page: Page, what = page.url()): Promise<void> {
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join(' | ')}`,
    );
  expect(bad, `axe on ${what}`).toEqual([]);
}

/**
 * At 390 px wide (a phone) nothing in the header or the page's title row (its actions) is cut
 * off: each visible control and text lies inside the viewport and is not truncated.
 */
export async function expectNothingClippedAt390(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('banner')).toBeVisible();
  // The layout settles (the navigation slides away below the breakpoint) before measuring.
  await expect
    .poll(() => page.locator('main').evaluate((m) => m.getBoundingClientRect().left))
    .toBeLessThan(1);
  const clipped = await page.evaluate(() => {
    const width = window.innerWidth;
    const h1 = document.querySelector('main h1');
    const roots: [Element | null, string][] = [
      [document.querySelector('header'), '*'],
      [h1?.parentElement ?? null, 'button, button *, a, h1, [data-testid]'],
    ];
    const out: string[] = [];
    for (const [root, selector] of roots) {
      if (root === null) continue;
      for (const el of root.querySelectorAll<HTMLElement>(selector)) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
        if (rect.left < -0.5 || rect.right > width + 0.5 || el.scrollWidth > el.clientWidth + 1)
          out.push(`${el.tagName.toLowerCase()} "${el.textContent?.trim() ?? ''}"`);
      }
    }
    return out;
  });
  expect(clipped).toEqual([]);
}

/**
 * The whole page at 390 px: on top of `expectNothingClippedAt390`, the page itself never
 * scrolls sideways (a wide table scrolls inside its card, or has become a list) and no badge's
 * text is cut short.
 */
export async function expectPhoneLayout(page: Page): Promise<void> {
  await expectNothingClippedAt390(page);
  const problems = await page.evaluate(() => {
    const out: string[] = [];
    const width = window.innerWidth;
    const pageWidth = document.documentElement.scrollWidth;
    if (pageWidth > width + 1) out.push(`the page is ${pageWidth} px wide`);
    for (const label of document.querySelectorAll<HTMLElement>('main .mantine-Badge-label')) {
      if (label.getBoundingClientRect().width === 0) continue;
      if (label.scrollWidth > label.clientWidth + 1) out.push(`badge "${label.textContent}"`);
    }
    return out;
  });
  expect(problems).toEqual([]);
}

/**
 * No ordinary word is split across two lines in the page's headings, table cells and badges
 * (a phone's narrow columns must not read "Adminis / trator"). Latin words, and a column
 * header's Chinese term (elsewhere Chinese breaks between characters by design; a hyphen is a
 * break of its own); letters next to digits are part of a value (a serial, an ID), which may
 * break since it cannot always fit.
 */
export async function expectNoSplitWords(page: Page, what = page.url()): Promise<void> {
  const split = await page.evaluate(() => {
    const out: string[] = [];
    const holders = document.querySelectorAll<HTMLElement>(
      'main h1, main h2, main h3, main th, main td, main .mantine-Badge-label, header',
    );
    for (const holder of holders) {
      const walker = document.createTreeWalker(holder, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        const words = [
          ...text.matchAll(/(?<![A-Za-z0-9])[A-Za-z][A-Za-z'’]{3,23}(?![A-Za-z0-9])/g),
          // A column header's Chinese term reads as one word ("最后签到", not "最后签 / 到").
          ...(holder.tagName === 'TH' ? text.matchAll(/[\u3400-\u9fff]{2,8}/g) : []),
        ];
        for (const m of words) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  });
  expect(split, `words split across lines on ${what}`).toEqual([]);
}
