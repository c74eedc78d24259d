/** Page models of the import and settings pages. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ImportPage {
  readonly heading: Locator;
  readonly form: Locator;
  readonly latest: Locator;
  readonly state: Locator;
  readonly counts: Locator;
  readonly progress: Locator;
  readonly errors: Locator;
  readonly downloadErrors: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Import', level: 1 });
    this.form = page.getByRole('form', { name: 'New import' });
    this.latest = page.getByRole('region', { name: 'Latest import' });
    this.state = this.latest.getByTestId('import-state');
    this.counts = this.latest.getByTestId('import-counts');
    this.progress = this.latest.getByRole('progressbar', { name: 'Import progress' });
    this.errors = page.getByRole('table', { name: 'Refused rows' }).getByRole('row');
    this.downloadErrors = page.getByRole('link', { name: 'Download errors (CSV)' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/import');
    await expect(this.heading).toBeVisible();
  }

  readonly checkResult = (): Locator => this.page.getByTestId('import-check');

  /** The refusal written under the CSV field. */
  csvError(): Locator {
    return this.form.getByText(/not a CSV file/).first();
  }

  /** Chooses a file as the CSV (any name and type: a person may pick the wrong one). */
  async chooseCsv(file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
    await this.choose('People (CSV)', file);
  }

  /** Chooses the files through the file dialogs, as a person does, and starts the import. */
  async start(files: { csv: Buffer; photos?: Buffer }): Promise<void> {
    await this.choose('People (CSV)', {
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: files.csv,
    });
    if (files.photos !== undefined) {
      await this.choose('Photos (ZIP, optional)', {
        name: 'photos.zip',
        mimeType: 'application/zip',
        buffer: files.photos,
      });
    }
    await this.form.getByRole('button', { name: 'Start import' }).click();
  }

  async choose(
    label: string,
    file: { name: string; mimeType: string; buffer: Buffer },
  ): Promise<void> {
    const chooser = this.page.waitForEvent('filechooser');
    await this.form.getByRole('button', { name: label }).click();
    await (await chooser).setFiles(file);
    await expect(this.form.getByRole('button', { name: label })).toContainText(file.name);
  }
}

export class SettingsPage {
  readonly heading: Locator;
  readonly retention: Locator;
  readonly save: Locator;
  readonly message: Locator;
  readonly sessions: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Settings', level: 1 });
    const form = page.getByRole('form', { name: 'Event retention' });
    this.retention = form.getByRole('textbox', { name: 'Keep recognition events for (days)' });
    this.save = form.getByRole('button', { name: 'Save retention' });
    this.message = page.getByTestId('settings-message');
    this.sessions = page.getByRole('table', { name: 'Session timeouts' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/settings');
    await expect(this.heading).toBeVisible();
  }
}
