import { expect, type Locator, type Page } from '@playwright/test';

/** The console's page model: what a technician sees and clicks. */
export class ConsolePage {
  constructor(readonly page: Page) {}

  tab(name: 'Terminals' | 'Diagnostics' | 'Acceptance'): Locator {
    return this.page.getByRole('tab', { name });
  }

  /** Picks a central service heard answering on the LAN; its address fills the field. */
  async pickHeardCentral(url: string): Promise<void> {
    await this.page.getByRole('button', { name: `Heard: ${url}` }).click();
    await expect(this.page.getByLabel('Central address', { exact: true })).toHaveValue(url);
    await expect(this.page.getByText(`Central: ${url}`)).toBeVisible();
    await expect(this.page.getByText(/heartbeat state=1/)).toBeVisible();
  }

  async probeNow(): Promise<void> {
    await this.page.getByRole('button', { name: 'Probe now' }).click();
    await expect(this.page.getByText(/^probe sent to \d+ address\(es\)$/)).toBeVisible();
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.page.getByLabel('User name').fill(username);
    await this.page.getByLabel('Password', { exact: true }).fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await expect(this.page.getByText(`Signed in as ${username}`)).toBeVisible();
  }

  terminalRow(id: string): Locator {
    return this.page
      .getByRole('table', { name: 'Terminals' })
      .getByRole('row')
      .filter({ hasText: id });
  }

  pushRow(id: string): Locator {
    return this.page
      .getByRole('table', { name: 'Push results' })
      .getByRole('row')
      .filter({ hasText: id });
  }

  layer(title: string): Locator {
    return this.page
      .getByRole('region', { name: `${title} layer` })
      .or(this.page.getByLabel(`${title} layer`));
  }

  async openLayer(title: string): Promise<Locator> {
    await this.page
      .getByRole('button', { name: new RegExp(`^${title}`) })
      .first()
      .click();
    return this.page.getByLabel(`${title} layer`);
  }

  async runLayer(title: string): Promise<Locator> {
    const layer = this.page.getByLabel(`${title} layer`);
    await layer.getByRole('button', { name: `Run ${title} check` }).click();
    await expect(layer.getByLabel(`${title} evidence`)).toBeVisible();
    return layer;
  }

  async confirm(title: string, who: string, note: string): Promise<void> {
    const layer = this.page.getByLabel(`${title} layer`);
    await layer.getByLabel('Confirmed by').fill(who);
    await layer.getByLabel('Note').fill(note);
    await layer.getByRole('button', { name: 'Record confirmation' }).click();
    await expect(layer.getByText(`Confirmed by ${who} at`)).toBeVisible();
  }
}
