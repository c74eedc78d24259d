/** Page models of the safety nets: a secret shown once, a question asked before an action. */
import os from 'node:os';
import { expect, type Locator, type Page } from '@playwright/test';

/** A non-loopback IPv4 address of this machine (the LAN address a site is normally opened on). */
export function lanAddress(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4' && !a.internal) return a.address;
    }
  }
  return null;
}

export class SecretDialog {
  readonly dialog: Locator;
  readonly secret: Locator;
  readonly byHand: Locator;

  constructor(
    readonly page: Page,
    title: string,
    testId: string,
  ) {
    this.dialog = page.getByRole('dialog', { name: title });
    this.secret = this.dialog.getByTestId(testId);
    this.byHand = this.dialog.getByTestId('copy-by-hand');
  }

  async text(): Promise<string> {
    return ((await this.secret.textContent()) ?? '').trim();
  }

  /** Esc, a click beside the dialog, and the lack of any close (×) button: the secret stays. */
  async expectNotLostByAccident(): Promise<void> {
    await expect(this.secret).toBeVisible();
    await this.page.keyboard.press('Escape');
    await this.page.mouse.click(5, 5);
    await expect(this.secret).toBeVisible();
    await expect(this.dialog.getByRole('button', { name: /close/i })).toHaveCount(0);
    await expect(this.dialog.locator('.mantine-Modal-close')).toHaveCount(0);
  }

  /** The dialog fits the viewport and the secret wraps rather than being cut off. */
  async expectWhollyShown(): Promise<void> {
    const width = this.page.viewportSize()?.width ?? 0;
    const box = await this.dialog.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= width + 0.5).toBe(true);
    expect(await this.secret.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  }

  /** Records what the page copies (the text selected when the copy happened). */
  async watchCopies(): Promise<void> {
    await this.page.evaluate(() => {
      const w = window as unknown as { copies: string[] };
      w.copies = [];
      document.addEventListener('copy', () => w.copies.push(String(window.getSelection() ?? '')));
    });
  }

  copies(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { copies: string[] }).copies);
  }

  /** The text currently selected on the page. */
  selection(): Promise<string> {
    return this.page.evaluate(() => String(window.getSelection() ?? '').trim());
  }
}

/** The question asked before an action that cuts something off. */
export function question(page: Page, title: string): Locator {
  return page.getByRole('dialog', { name: title });
}
