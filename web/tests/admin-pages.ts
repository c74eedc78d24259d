/** Page model of the Administrators page: rows, their actions, the create and edit dialogs. */
import { expect, type Locator, type Page } from '@playwright/test';

export class AdministratorsListPage {
  readonly heading: Locator;
  readonly create: Locator;
  readonly table: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Administrators', level: 1 });
    this.create = page.getByRole('button', { name: 'New administrator' });
    this.table = page.getByRole('table', { name: 'Administrators' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/administrators');
    await expect(this.heading).toBeVisible();
  }

  row(username: string): Locator {
    return this.table.locator(`[data-testid="administrator-row"][data-username="${username}"]`);
  }

  /** Opens the row's Actions menu; the menu items are then `menuItem(name)`. */
  async openActions(username: string): Promise<void> {
    // Exact: on a shared site "Actions for admin" would also name "Actions for admin-2fa-…".
    await this.page.getByRole('button', { name: `Actions for ${username}`, exact: true }).click();
  }

  menuItem(name: string): Locator {
    return this.page.getByRole('menuitem', { name });
  }

  dialog(title: string): Locator {
    return this.page.getByRole('dialog', { name: title });
  }

  /** Creates an account through the dialog; the one-time password dialog is then open. */
  async createAccount(username: string, role: string): Promise<void> {
    await this.create.click();
    const form = this.dialog('New administrator');
    await form.getByRole('textbox', { name: 'Username' }).fill(username);
    await form.getByRole('combobox', { name: 'Role' }).click();
    await this.page.getByRole('option', { name: role, exact: true }).click();
    await form.getByRole('button', { name: 'Create' }).click();
  }
}

/** The question asked before a dialog's typed entries are thrown away. */
export function discardQuestion(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Discard what you typed?' });
}
