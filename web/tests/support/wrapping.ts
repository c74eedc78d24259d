import { expect, type Locator, type Page } from '@playwright/test';

/** Long values without a space to break at: do they stay inside their boxes and the page? */

/** Where `value` is shown in `scope`: the element's box must hold all of its text. */
export async function overflowOf(scope: Locator, value: string): Promise<string[]> {
  return scope.evaluateAll((roots, text) => {
    const out: string[] = [];
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        if (!(node.textContent ?? '').includes(text)) continue;
        const holder = node.parentElement;
        if (holder === null) continue;
        // The nearest box that frames the value: a table cell, a card, an alert, the heading.
        const frame =
          holder.closest('td, th, .mantine-Card-root, .mantine-Alert-root, h1') ?? holder;
        const range = document.createRange();
        range.selectNodeContents(node);
        const textBox = range.getBoundingClientRect();
        const box = frame.getBoundingClientRect();
        if (textBox.right > box.right + 1 || frame.scrollWidth > frame.clientWidth + 1) {
          out.push(
            `${frame.tagName.toLowerCase()} text ends at ${Math.round(textBox.right)}, box at ${Math.round(box.right)}`,
          );
        }
      }
    }
    return out;
  }, value);
}

export async function expectWrapped(scope: Locator, values: string[]): Promise<void> {
  for (const value of values) {
    await expect(scope.getByText(value, { exact: false }).first()).toBeVisible();
    expect(await overflowOf(scope, value), value.slice(0, 12)).toEqual([]);
  }
}

/**
 * At 1280 px the table fits the page: no sideways scroll of the page, and none inside the
 * table's own box either (its last column in view without scrolling).
 */
export async function expectFitsAt1280(page: Page, table: Locator): Promise<void> {
  const sizes = await table.evaluate((el) => {
    const box = el.closest('.mantine-ScrollArea-viewport') ?? el.parentElement ?? el;
    return {
      page: document.documentElement.scrollWidth,
      table: Math.round(el.getBoundingClientRect().width),
      box: box.clientWidth,
    };
  });
  expect(sizes.page, 'the page is wider than the window').toBeLessThanOrEqual(1280);
  expect(sizes.table, 'the table is wider than its box').toBeLessThanOrEqual(sizes.box + 1);
}

/** A name of 60 characters without a space to break at (outside eyes found this one). */
export const unbroken = (start: string, fill: string) => start.padEnd(60, fill);
