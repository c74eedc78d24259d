/** Page models of the signed-in data pages (people, person, person form, events). */
import { expect, type Locator, type Page } from '@playwright/test';
import { LoginPage } from './pages';
import type { Account } from './support/admin-api';

/** Signs in through the login page and waits for the signed-in shell. */
export async function signIn(page: Page, account: Account, path = '/'): Promise<void> {
  const login = new LoginPage(page);
  await login.goto(path);
  await login.signIn(account.username, account.password);
  await expect(page.getByTestId('current-username')).toHaveText(account.username);
}

export class Navigation {
  readonly nav: Locator;
  constructor(readonly page: Page) {
    this.nav = page.getByRole('navigation', { name: 'Sections' });
  }
  link(name: 'Dashboard' | 'People' | 'Events'): Locator {
    return this.nav.getByRole('link', { name, exact: true });
  }
}

export class PeopleListPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly space: Locator;
  readonly total: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly newPerson: Locator;
  readonly nameSort: Locator;
  readonly nextPage: Locator;
  readonly previousPage: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'People', level: 1 });
    this.search = page.getByRole('searchbox', { name: 'Search' });
    this.space = page.getByRole('combobox', { name: 'Space', exact: true });
    this.total = page.getByTestId('people-total');
    this.table = page.getByRole('table', { name: 'People' });
    this.rows = this.table.getByTestId('person-row');
    this.newPerson = page.getByRole('link', { name: 'New person' });
    this.nameSort = this.table.getByRole('button', { name: /^Name, sorted/ });
    this.nextPage = page.getByRole('button', { name: 'Next page' });
    this.previousPage = page.getByRole('button', { name: 'Previous page' });
  }

  names(): Promise<string[]> {
    return this.rows.locator('td:first-child').allInnerTexts();
  }

  async chooseSpace(name: string): Promise<void> {
    await this.space.click();
    await this.page.getByRole('option', { name, exact: true }).click();
  }
}

export class PersonDetailPage {
  readonly name: Locator;
  readonly idNumber: Locator;
  readonly spaces: Locator;
  readonly enabled: Locator;
  readonly edit: Locator;
  readonly photo: Locator;
  readonly syncRows: Locator;
  readonly refreshSync: Locator;
  /** The warning naming the devices that cannot take the photo. */
  readonly photoFitWarning: Locator;

  constructor(readonly page: Page) {
    this.name = page.getByTestId('person-name');
    this.idNumber = page.getByTestId('person-id-number');
    this.spaces = page.getByTestId('person-spaces');
    this.enabled = page.getByTestId('person-enabled');
    this.edit = page.getByRole('link', { name: 'Edit' });
    this.photo = page.getByRole('img', { name: /^Photo of / });
    const devices = page.getByRole('region', { name: 'Devices' });
    this.syncRows = devices.getByTestId('sync-row');
    this.refreshSync = devices.getByRole('button', { name: 'Refresh' });
    this.photoFitWarning = page
      .getByRole('status')
      .filter({ hasText: 'Some devices cannot take this photo' });
  }

  heading(name: string): Locator {
    return this.page.getByRole('heading', { name, level: 1 });
  }
}

export class PersonFormPage {
  readonly form: Locator;
  readonly name: Locator;
  readonly idNumber: Locator;
  readonly spaces: Locator;
  readonly enabled: Locator;
  readonly photo: Locator;
  /** The photo box as a person sees it: the chosen file's name, if any. */
  readonly chosenPhoto: Locator;
  readonly create: Locator;
  readonly save: Locator;
  readonly error: Locator;
  readonly errorTitle: Locator;
  /** What the form is doing now ("Checking the photo…"). */
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByRole('form', { name: 'Person' });
    this.name = this.form.getByRole('textbox', { name: 'Name' });
    this.idNumber = this.form.getByRole('textbox', { name: 'ID number' });
    this.spaces = this.form.getByLabel('Spaces', { exact: true });
    this.enabled = this.form.getByRole('switch', { name: 'Enabled' });
    this.photo = this.form.locator('input[type="file"]');
    this.chosenPhoto = this.form.getByRole('button', { name: /^(Photo|Replace photo)/ });
    this.create = this.form.getByRole('button', { name: 'Create' });
    this.save = this.form.getByRole('button', { name: 'Save' });
    this.error = page.getByTestId('form-error');
    this.errorTitle = this.error.locator('.mantine-Alert-title');
    this.status = this.form.getByTestId('photo-status');
  }

  /** The error text Mantine shows under an input (linked by aria-describedby). */
  fieldError(input: Locator): Promise<string> {
    return input.evaluate((element) => {
      const ids = (element.getAttribute('aria-describedby') ?? '').split(/\s+/);
      return ids
        .map((id) => document.getElementById(id))
        .filter((node) => node?.id.endsWith('-error'))
        .map((node) => node?.textContent ?? '')
        .join(' ');
    });
  }

  /** Pastes `text` into `input` from the clipboard, as a person does (Ctrl+V). */
  async paste(input: Locator, text: string): Promise<void> {
    await this.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await this.page.evaluate((value) => navigator.clipboard.writeText(value), text);
    await input.click();
    await this.page.keyboard.press('ControlOrMeta+V');
  }

  async chooseSpace(name: string): Promise<void> {
    await this.spaces.click();
    await this.page.getByRole('option', { name, exact: true }).click();
    await this.page.keyboard.press('Escape');
  }
}

export class EventsListPage {
  readonly heading: Locator;
  readonly live: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly device: Locator;
  readonly person: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Events', level: 1 });
    this.live = page.getByTestId('live-status');
    this.table = page.getByRole('table', { name: 'Recognition events' });
    this.rows = page.getByTestId('event-row');
    this.device = page.getByRole('combobox', { name: 'Device', exact: true });
    this.person = page.getByRole('combobox', { name: 'Person', exact: true });
  }

  row(eventId: string): Locator {
    return this.page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`);
  }

  /** The flag of an event whose device clock was more than a day off. */
  reportedTime(eventId: string): Locator {
    return this.row(eventId).getByTestId('event-reported-time');
  }

  async chooseDevice(label: RegExp | string): Promise<void> {
    await this.device.click();
    await this.page.getByRole('option', { name: label }).click();
  }
}
