/** Page models of the review pages: pending enrollment changes and the audit log. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ChangesPage {
  readonly heading: Locator;
  readonly table: Locator;
  readonly state: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Pending changes', level: 1 });
    this.table = page.getByRole('table', { name: 'Changes' });
    this.state = page.getByRole('combobox', { name: 'State' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/enrollment/changes');
    await expect(this.heading).toBeVisible();
  }

  async show(state: 'Pending review' | 'Approved' | 'Rejected' | 'Superseded' | 'All') {
    await this.state.click();
    await this.page.getByRole('option', { name: state, exact: true }).click();
  }

  row(changeId: string): Locator {
    return this.table.locator(`[data-testid="change-row"][data-id="${changeId}"]`);
  }
}

export class ChangePage {
  readonly heading: Locator;
  readonly approve: Locator;
  readonly reject: Locator;
  readonly dialog: Locator;
  readonly state: Locator;
  readonly name: Locator;
  readonly photos: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.approve = page.getByRole('button', { name: 'Approve', exact: true });
    this.reject = page.getByRole('button', { name: 'Reject', exact: true });
    this.dialog = page.getByRole('dialog');
    this.state = page.getByTestId('change-state');
    this.name = page.getByTestId('change-name');
    this.photos = page.getByRole('region', { name: 'Photos' });
  }

  photo(which: 'before' | 'sent'): Locator {
    return this.photos.getByRole('img', {
      name: which === 'before' ? /before the change$/ : /^Photo sent for /,
    });
  }

  /** Approves or rejects through the confirmation dialog. */
  async decide(decision: 'Approve' | 'Reject'): Promise<void> {
    await (decision === 'Approve' ? this.approve : this.reject).click();
    await this.dialog.getByRole('button', { name: `${decision} change` }).click();
    await expect(this.dialog).toBeHidden();
  }
}

export class AuditPage {
  readonly heading: Locator;
  readonly form: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly total: Locator;
  readonly exportCsv: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Audit log', level: 1 });
    this.form = page.getByRole('form', { name: 'Search the audit log' });
    this.table = page.getByRole('table', { name: 'Audit log' });
    this.rows = this.table.getByTestId('audit-row');
    this.total = page.getByTestId('audit-total');
    this.exportCsv = page.getByRole('link', { name: 'Export CSV' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/audit');
    await expect(this.heading).toBeVisible();
  }

  field(name: 'Actor' | 'Action' | 'Object type' | 'Object ID' | 'From' | 'Until'): Locator {
    return this.form.getByLabel(name, { exact: true });
  }

  async search(fields: Partial<Record<'Actor' | 'Action' | 'Object type' | 'Object ID', string>>) {
    for (const [name, value] of Object.entries(fields)) {
      await this.field(name as keyof typeof fields).fill(value);
    }
    await this.form.getByRole('button', { name: 'Search' }).click();
  }
}
