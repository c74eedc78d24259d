import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { DeviceHandle, TerminalHandle, TerminalOptions } from '@svc/sim';
import {
  closedPort,
  startCentral,
  type CentralProcess,
} from '../../src/testing/central-process.js';
import { loopbackDevice, loopbackTerminal } from '../../src/testing/sim.js';
import { AdminApi } from './admin-api.js';
import { consoleOn, type ConsoleProcess } from './console-process.js';

/**
 * What proofs.spec's tests share: one central service with its push worker, the console, an
 * administrator's API, a registered device in space "Gate P", and terminals on loopback — three
 * that announce, a mute one on 127.0.0.3 and a clone on 127.0.0.4 — and one page for the
 * console's whole run (its link is good once).
 */
export class ProofsStack {
  readonly terminals: Record<string, TerminalHandle> = {};
  readonly runDir = mkdtempSync(path.join(os.tmpdir(), 'svc-console-proofs-'));
  central!: CentralProcess;
  consoleProc!: ConsoleProcess;
  admin!: AdminApi;
  device!: DeviceHandle;
  spaceId = '';
  page!: Page;

  constructor(readonly discoveryPort: number) {}

  /** A terminal on loopback, kept (by id and address) until `stop`. */
  async terminal(
    id: string,
    kind: 'enrollment' | 'display',
    extra: Partial<TerminalOptions> = {},
  ): Promise<TerminalHandle> {
    const t = await loopbackTerminal(this.discoveryPort, id, kind, extra);
    this.terminals[`${id}@${extra.bindAddress ?? '127.0.0.1'}`] = t;
    return t;
  }

  async start(browser: Browser): Promise<void> {
    this.central = await startCentral({
      discoveryPort: this.discoveryPort,
      env: { SVC_PUSH_WORKER: '1', HEARTBEAT_TIMEOUT: '60' },
    });
    await this.terminal('ENR-P', 'enrollment');
    await this.terminal('DSP-A', 'display');
    await this.terminal('DSP-B', 'display');
    // A terminal that runs but never announces, on an address of this laptop's loopback subnet.
    const mute = await this.terminal('ENR-MUTE', 'enrollment', {
      bindAddress: '127.0.0.3',
      faults: { mute: true },
    });
    // One id, two terminals: a cloned configuration.
    await this.terminal('DSP-CLONE', 'display', { bindAddress: '127.0.0.4' });
    this.device = await loopbackDevice('DEV-P');
    this.consoleProc = await consoleOn(this.discoveryPort, {
      TERMINAL_MANAGEMENT_PORTS: `${new URL(mute.url).port},${await closedPort()}`,
    });
    this.admin = new AdminApi(this.central.url);
    await this.admin.signIn(this.central.username, this.central.password);
    const space = (await this.admin.call('POST', '/api/spaces', { name: 'Gate P' })) as {
      id: string;
    };
    this.spaceId = space.id;
    const registered = (await this.admin.call('POST', '/api/devices', {
      sn: 'DEV-P',
      name: 'Gate P device',
      baseUrl: this.device.url,
      spaceId: this.spaceId,
    })) as { key: string };
    await this.device.setConnection({ key: registered.key, centralUrl: this.central.url });
    this.page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await this.page.goto(this.consoleProc.url);
  }

  async stop(): Promise<void> {
    await this.page?.close();
    await this.consoleProc?.stop();
    for (const t of Object.values(this.terminals)) await t.stop();
    await this.device?.stop();
    await this.central?.stop();
    rmSync(this.runDir, { recursive: true, force: true });
  }
}
