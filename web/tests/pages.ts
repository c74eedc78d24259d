/** Page models of the management site; locators by role, label and (where ambiguous) test id. */
import { expect, type Locator, type Page } from '@playwright/test';

export class LoginPage {
  readonly heading: Locator;
  readonly username: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Sign in' });
    this.username = page.getByLabel('Username', { exact: true });
    this.password = page.getByLabel('Password', { exact: true });
    this.submit = page.getByRole('button', { name: 'Sign in' });
    this.error = page.getByTestId('login-error');
    this.notice = page.getByTestId('login-notice');
  }

  async goto(path = '/'): Promise<void> {
    await this.page.goto(path);
    await expect(this.heading).toBeVisible();
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.username.fill(username);
    await this.password.fill(password);
    await this.submit.click();
  }
}

export class ChangePasswordPage {
  readonly heading: Locator;
  readonly currentPassword: Locator;
  readonly newPassword: Locator;
  readonly confirmation: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Change your password' });
    this.currentPassword = page.getByLabel('Current password', { exact: true });
    this.newPassword = page.getByLabel('New password', { exact: true });
    this.confirmation = page.getByLabel('Confirm new password', { exact: true });
    this.submit = page.getByRole('button', { name: 'Change password' });
    this.error = page.getByTestId('password-error');
  }

  /** The message Mantine shows under an input (linked by aria-describedby); '' for none. */
  fieldError(input: Locator): Promise<string> {
    return input.evaluate((element) =>
      (element.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .filter((id) => id.endsWith('-error'))
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  }

  async change(current: string, next: string, confirmation = next): Promise<void> {
    await this.currentPassword.fill(current);
    await this.newPassword.fill(next);
    await this.confirmation.fill(confirmation);
    await this.submit.click();
  }
}

export class HomePage {
  readonly heading: Locator;
  readonly username: Locator;
  readonly role: Locator;
  readonly signOutButton: Locator;
  readonly status: Locator;
  readonly statusState: Locator;
  readonly statusVersion: Locator;
  readonly statusDatabase: Locator;
  readonly statusUptime: Locator;
  readonly statusWarnings: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Dashboard', level: 1 });
    this.username = page.getByTestId('current-username');
    this.role = page.getByTestId('current-role');
    this.signOutButton = page.getByRole('button', { name: 'Account' });
    this.status = page.getByRole('region', { name: 'Service status' });
    this.statusState = this.status.getByTestId('status-state');
    this.statusVersion = this.status.getByTestId('status-version');
    this.statusDatabase = this.status.getByTestId('status-database');
    this.statusUptime = this.status.getByTestId('status-uptime');
    this.statusWarnings = this.status.getByTestId('status-warnings');
  }

  async signOut(): Promise<void> {
    await this.signOutButton.click();
    await this.page.getByRole('menuitem', { name: 'Sign out' }).click();
  }
}
