import { expect, type Locator, type Page } from '@playwright/test';
import { ConsolePage } from './console-page.js';

/** What the console's proofs, diagnostics and live header look like to a technician. */
export class ProofsPage extends ConsolePage {
  constructor(page: Page) {
    super(page);
  }

  async select(...ids: string[]): Promise<void> {
    for (const id of ids) await this.page.getByLabel(`Select ${id}`).check();
  }

  async pushThroughCentral(count: number, centralUrl: string): Promise<void> {
    await this.page.getByLabel('Central address to push').fill(centralUrl);
    await this.page.getByRole('button', { name: `Push to ${count} selected` }).click();
  }

  async pushDirectly(count: number): Promise<void> {
    await this.page
      .getByRole('button', { name: `Push directly to ${count} (not authorized at central)` })
      .click();
  }

  /** Every proof badge in the push results, with whether it is cut. */
  async badgeWidths(): Promise<
    { text: string; scroll: number; client: number; overflowsCell: boolean }[]
  > {
    return this.page
      .getByRole('table', { name: 'Push results' })
      .locator('.mantine-Badge-root')
      .evaluateAll((els: unknown[]) =>
        els.map((el) => {
          // A DOM element; the e2e project compiles without the DOM library.
          type Box = { right: number; left: number };
          const e = el as {
            textContent: string | null;
            scrollWidth: number;
            clientWidth: number;
            getBoundingClientRect(): Box;
            closest(selector: string): { getBoundingClientRect(): Box } | null;
          };
          const own = e.getBoundingClientRect();
          const cell = e.closest('td')?.getBoundingClientRect();
          return {
            text: e.textContent ?? '',
            scroll: e.scrollWidth,
            client: e.clientWidth,
            overflowsCell: !!cell && (own.right > cell.right + 0.5 || own.left < cell.left - 0.5),
          };
        }),
      );
  }

  /** The texts inside `box` that reach past its right edge (cut off by its overflow). */
  async cutInside(box: Locator): Promise<string[]> {
    return box.evaluate((el: unknown) => {
      type Box = { right: number };
      type Node = { textContent: string | null; getBoundingClientRect(): Box };
      const root = el as Node & { querySelectorAll(s: string): Iterable<Node> };
      const right = root.getBoundingClientRect().right;
      return [...root.querySelectorAll('*')]
        .filter((c) => c.getBoundingClientRect().right > right + 0.5)
        .map((c) => c.textContent ?? '');
    });
  }

  async diagnose(address: string): Promise<Locator> {
    await this.tab('Diagnostics').click();
    await this.page.getByLabel('Terminal address (optional, from its label)').fill(address);
    await this.page.getByRole('button', { name: 'Run diagnostics' }).click();
    const findings = this.page.getByRole('region', { name: 'Findings' });
    await expect(findings).toBeVisible();
    return findings;
  }
}
