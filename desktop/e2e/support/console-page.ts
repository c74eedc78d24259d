import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';

/** The console's page model: what a technician sees and clicks. */
export class ConsolePage {
  constructor(readonly page: Page) {}

  /** The live header's words about the central service. */
  header(): Locator {
    return this.page.getByRole('status', { name: 'Central service status' });
  }

  tab(name: 'Terminals' | 'Diagnostics' | 'Acceptance'): Locator {
    return this.page.getByRole('tab', { name });
  }

  /** Picks a central service heard answering on the LAN; its address fills the field. */
  async pickHeardCentral(url: string): Promise<void> {
    await this.page.getByRole('button', { name: `Heard: ${url}` }).click();
    await expect(this.page.getByLabel('Central address', { exact: true })).toHaveValue(url);
    await expect(this.page.getByText(`Central: ${url}`)).toBeVisible();
    await expect(this.page.getByText(/^Central service answering/).first()).toBeVisible();
  }

  async probeNow(): Promise<void> {
    await this.page.getByRole('button', { name: 'Probe now' }).click();
    await expect(this.page.getByText(/^probe sent to \d+ address(es)?$/)).toBeVisible();
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
      // The step's name starts with its number when not run, its mark (✔ ⚠ ✘ …) once run.
      .getByRole('button', { name: new RegExp(`^(\\d+|✔|✘|⚠|…)?\\s*${title}`) })
      .first()
      .click();
    return this.page.getByLabel(`${title} layer`);
  }

  async runLayer(title: string): Promise<Locator> {
    const layer = this.page.getByLabel(`${title} layer`);
    await layer.getByRole('button', { name: `Run ${title} check` }).click();
    // A layer's run has its own budgets (the synchronization layer: a photo upload of up to
    // 50 s, then up to 30 s for the device's answer), longer than an ordinary expect.
    await expect(layer.getByLabel(`${title} evidence`)).toBeVisible({ timeout: 120_000 });
    return layer;
  }

  async confirm(title: string, who: string, note: string): Promise<void> {
    const layer = this.page.getByLabel(`${title} layer`);
    await layer.getByLabel('Confirmed by').fill(who);
    await layer.getByLabel('Note').fill(note);
    await layer.getByRole('button', { name: 'Record confirmation' }).click();
    await expect(layer.getByText(`Confirmed by ${who} at`)).toBeVisible();
  }

  /**
   * Opens the console's one-time link, works with the central service at `centralUrl`, and
   * signs in with `account` when one is given.
   */
  async start(
    consoleUrl: string,
    centralUrl: string,
    account?: { username: string; password: string },
  ): Promise<void> {
    await this.page.goto(consoleUrl);
    await this.useCentral(centralUrl);
    if (account) await this.signIn(account.username, account.password);
  }

  /** Opens a layer of the acceptance tab and runs its check. */
  async check(title: string): Promise<Locator> {
    await this.tab('Acceptance').click();
    await this.openLayer(title);
    return this.runLayer(title);
  }

  /** Types a central address and uses it. */
  async useCentral(url: string): Promise<void> {
    await this.page.getByLabel('Central address', { exact: true }).fill(url);
    await this.page.getByRole('button', { name: 'Use this central service' }).click();
    await expect(this.page.getByText(`Central: ${url}`)).toBeVisible();
  }

  /** The acceptance tab's last step: the handover report. */
  async openReport(): Promise<Locator> {
    await this.tab('Acceptance').click();
    await this.openLayer('Recognition loop');
    await this.page.getByRole('button', { name: 'Next layer' }).click();
    return this.page.getByLabel('Handover report');
  }

  /** Finish; with layers never run the console asks first, and this agrees. */
  async finish(technician: string, site: string, layersNotRun: boolean): Promise<Locator> {
    const report = await this.openReport();
    await report.getByLabel('Technician').fill(technician);
    await report.getByLabel('Site').fill(site);
    await report.getByRole('button', { name: 'Finish acceptance' }).click();
    if (layersNotRun) {
      const ask = report.getByRole('alertdialog', { name: 'Finish without them' });
      await expect(ask).toContainText('never run');
      await ask.getByRole('button', { name: 'Finish without them' }).click();
    }
    await expect(report.getByText('Recorded at central as')).toBeVisible();
    return report;
  }

  /** Clicks a report download and returns the file's bytes. */
  async download(report: Locator, format: 'HTML' | 'JSON' | 'PDF'): Promise<Buffer> {
    const download = this.page.waitForEvent('download');
    await report.getByRole('button', { name: `Download ${format}` }).click();
    return readFileSync(await (await download).path());
  }
}
