/** Page models of the spaces and devices pages. */
import { expect, type Locator, type Page } from '@playwright/test';

export class SpacesPage {
  readonly heading: Locator;
  readonly newSpace: Locator;
  readonly tree: Locator;
  readonly dialog: Locator;
  readonly refusal: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Spaces', level: 1 });
    this.newSpace = page.getByRole('button', { name: 'New space' });
    this.tree = page.getByRole('navigation', { name: 'Space tree' });
    this.dialog = page.getByRole('dialog');
    this.refusal = page.getByTestId('space-refusal');
  }

  async goto(): Promise<void> {
    await this.page.goto('/spaces');
    await expect(this.heading).toBeVisible();
  }

  node(name: string): Locator {
    return this.tree.getByRole('button', { name, exact: true });
  }

  details(name: string): Locator {
    return this.page.getByRole('region', { name: `Space ${name}` });
  }

  action(name: 'Add space inside' | 'Rename or move' | 'Delete'): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }

  /** Confirms the question asked before a space is deleted. */
  async confirmDelete(name: string): Promise<void> {
    const ask = this.page.getByRole('dialog', { name: `Delete the space ${name}?` });
    await ask.getByRole('button', { name: 'Delete space' }).click();
    await expect(ask).toHaveCount(0);
  }

  /** Fills the open space dialog and submits it. */
  async fill(name: string, parentPath?: string, submit = 'Create'): Promise<void> {
    await this.dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    if (parentPath !== undefined) {
      await this.dialog.getByRole('combobox', { name: 'Parent' }).click();
      await this.page.getByRole('option', { name: parentPath, exact: true }).click();
    }
    await this.dialog.getByRole('button', { name: submit }).click();
  }
}

export class DevicesPage {
  readonly heading: Locator;
  readonly register: Locator;
  readonly table: Locator;
  readonly dialog: Locator;
  readonly key: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Devices', level: 1 });
    this.register = page.getByRole('button', { name: 'Register device' });
    this.table = page.getByRole('table', { name: 'Devices' });
    this.dialog = page.getByRole('dialog');
    this.key = page.getByTestId('device-key');
  }

  async goto(): Promise<void> {
    await this.page.goto('/devices');
    await expect(this.heading).toBeVisible();
  }

  row(sn: string): Locator {
    return this.table.locator(`[data-testid="device-row"][data-sn="${sn}"]`);
  }

  /** The question asked before a key is rotated: it names the consequence. */
  rotateQuestion(deviceName: string): Locator {
    return this.page.getByRole('dialog', { name: `Rotate the key of ${deviceName}?` });
  }

  async confirmRotate(deviceName: string): Promise<void> {
    const ask = this.rotateQuestion(deviceName);
    await expect(ask).toContainText('until the new key is entered on the device');
    await ask.getByRole('button', { name: 'Rotate key' }).click();
  }

  async action(deviceName: string, item: string): Promise<void> {
    await this.page.getByRole('button', { name: `Actions for ${deviceName}` }).click();
    await this.page.getByRole('menuitem', { name: item }).click();
  }
}

export class SystemPage {
  readonly heading: Locator;
  readonly advertised: Locator;
  readonly warnings: Locator;
  readonly terminals: Locator;
  /** "No terminal heard yet". */
  readonly terminalsEmpty: Locator;
  readonly centralAddress: Locator;
  readonly push: Locator;
  readonly terminalKey: Locator;
  readonly panelUrl: Locator;
  readonly savePanel: Locator;
  readonly panelMessage: Locator;
  readonly testPanel: Locator;
  /** Why Test connection waits (the route typed is not saved yet), said under it. */
  readonly testPanelReason: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'System Configuration', level: 1 });
    this.advertised = page.getByTestId('advertised-url');
    this.warnings = page.getByTestId('system-warnings');
    this.terminals = page.getByRole('table', { name: 'Terminals' });
    this.terminalsEmpty = page.getByTestId('terminals-empty');
    this.centralAddress = page.getByRole('textbox', { name: 'Central address' });
    this.push = page.getByRole('button', { name: /^Push central address/ });
    this.terminalKey = page.getByLabel('Terminal key');
    this.panelUrl = page.getByRole('textbox', { name: 'Panel URL' });
    this.savePanel = page.getByRole('button', { name: 'Save panel route' });
    this.panelMessage = page.getByTestId('panel-message');
    this.testPanel = page.getByRole('button', { name: 'Test connection' });
    this.testPanelReason = page.getByTestId('panel-test-reason');
  }

  terminal(id: string): Locator {
    return this.terminals.locator(`[data-testid="terminal-row"][data-id="${id}"]`);
  }

  select(id: string): Locator {
    return this.page.getByRole('checkbox', { name: `Select ${id}` });
  }
}

export class OrganizationsPage {
  readonly heading: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly ownRole: Locator;
  readonly ownPermissions: Locator;
  readonly newOrganization: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Organizations', level: 1 });
    this.newOrganization = page.getByRole('button', { name: 'New organization' });
    this.dialog = page.getByRole('dialog');
    this.table = page.getByRole('list', { name: 'Organizations' });
    this.rows = this.table.getByTestId('organization-row');
    this.ownRole = page.getByTestId('own-role');
    this.ownPermissions = page.getByTestId('own-permissions');
  }

  row(name: string): Locator {
    return this.rows.filter({ has: this.page.getByText(name, { exact: true }) });
  }

  async goto(): Promise<void> {
    await this.page.goto('/organizations');
    await expect(this.heading).toBeVisible();
  }
}

export class DashboardPage {
  readonly heading: Locator;
  readonly warnings: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Dashboard', level: 1 });
    this.warnings = page.getByTestId('status-warnings');
  }

  tile(testId: string): Locator {
    return this.page.getByTestId(testId);
  }
}

export class DevicePage {
  readonly heading: Locator;
  readonly retryFailed: Locator;
  readonly reconcileNow: Locator;
  readonly notice: Locator;
  readonly reconciliation: Locator;
  readonly tasks: Locator;
  readonly clock: Locator;
  readonly clockWarning: Locator;

  constructor(
    readonly page: Page,
    name: string,
  ) {
    this.heading = page.getByRole('heading', { name, level: 1 });
    this.retryFailed = page.getByRole('button', { name: 'Retry failed' });
    this.reconcileNow = page.getByRole('button', { name: 'Reconcile now' });
    this.notice = page.getByTestId('device-notice');
    this.reconciliation = page.getByTestId('device-reconciliation');
    this.tasks = page.getByRole('table', { name: 'Tasks' });
    this.clock = page.getByTestId('device-clock');
    this.clockWarning = page.getByRole('alert').filter({ hasText: 'Device clock is wrong' });
  }

  task(personId: string): Locator {
    return this.tasks.locator(`[data-testid="task-row"][data-person="${personId}"]`);
  }

  count(state: 'pending' | 'running' | 'succeeded' | 'failed' | 'waitingPhoto'): Locator {
    return this.page.getByTestId(`count-${state}`);
  }
}

/** A superadmin's organization switcher in the header. */
export class OrganizationSwitcher {
  readonly input: Locator;

  /** In the header; on a phone, at the top of the navigation the menu button opens. */
  constructor(
    readonly page: Page,
    where: 'header' | 'navigation' = 'header',
  ) {
    const within =
      where === 'header'
        ? page.getByRole('banner')
        : page.getByRole('navigation', { name: 'Main', exact: true });
    this.input = within.getByRole('combobox', { name: 'Organization' });
  }

  async choose(name: string): Promise<void> {
    await this.input.click();
    await this.page.getByRole('option', { name, exact: true }).click();
    await expect(this.input).toHaveValue(name);
  }
}
