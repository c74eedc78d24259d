/** Page models of /sync, a person's erasure and an event's page. */
import { expect, type Locator, type Page } from '@playwright/test';
import { startDevice } from '@svc/sim';
import { deviceWithKey } from '@svc/shared';
import type { AdminApi } from './support/admin-api';

export class SyncPage {
  readonly heading: Locator;
  readonly live: Locator;
  readonly table: Locator;
  readonly notice: Locator;
  readonly attemptsHelp: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Synchronization', level: 1 });
    this.live = page.getByTestId('live-status');
    this.table = page.getByRole('table', { name: 'Tasks' });
    this.notice = page.getByTestId('sync-notice');
    this.attemptsHelp = page.getByTestId('attempts-help');
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/sync${query}`);
    await expect(this.heading).toBeVisible();
  }

  task(personId: string): Locator {
    return this.table.locator(`[data-testid="task-row"][data-person="${personId}"]`);
  }

  /** A count card; `waiting`: the tasks waiting for a photo (not counted as failed). */
  count(state: 'pending' | 'running' | 'succeeded' | 'failed' | 'waiting'): Locator {
    return this.page.getByTestId(`count-${state}`);
  }

  async filter(label: 'State' | 'Device' | 'Lane', option: string | RegExp): Promise<void> {
    await this.page.getByRole('combobox', { name: label, exact: true }).click();
    await this.page.getByRole('option', { name: option }).click();
  }

  retryAllOf(deviceName: string): Locator {
    return this.page.getByRole('button', { name: `Retry all failed of ${deviceName}` });
  }
}

export class ErasurePage {
  readonly heading: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Erasing a deleted person', level: 1 });
    this.status = page.getByTestId('erasure-status');
  }
}

export class EventPage {
  readonly delivery: Locator;
  readonly history: Locator;
  /** The rows of the failed tries' table (try, time, reason). */
  readonly failedTries: Locator;
  readonly snapshot: Locator;
  readonly viewFullSize: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.delivery = page.getByTestId('event-delivery');
    this.history = page.getByRole('region', { name: 'Delivery to the panel' });
    this.failedTries = this.history
      .getByRole('table', { name: 'Failed tries' })
      .getByTestId('delivery-failure');
    this.snapshot = page.getByRole('region', { name: 'Snapshot' }).getByRole('img');
    this.viewFullSize = page.getByRole('button', { name: 'View full size' });
    this.dialog = page.getByRole('dialog', { name: 'Snapshot' });
  }
}

/** A simulated device registered in a new space, beating every second (so online). */
export async function simDevice(api: AdminApi, serverURL: string, t: string) {
  const space = await api.createSpace(`Hall ${t}`);
  const sn = `SIM-${t}`.toUpperCase();
  const sim = await startDevice({ sn, bindAddress: '127.0.0.1', heartbeatIntervalMs: 1_000 });
  const device = deviceWithKey.parse(
    await api.post('/api/devices', { sn, name: `Door ${t}`, baseUrl: sim.url, spaceId: space.id }),
  );
  await sim.setConnection({ key: device.key, centralUrl: serverURL });
  return { space, device, sim };
}
