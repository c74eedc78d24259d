import { networkInterfaces } from 'node:os';
import { openNodeUdpSocket } from '@svc/shared/udp';
import type { SessionStore } from './acceptance/session-store.js';
import type { ConsoleApi, ConsoleSettings } from './api.js';
import { createTerminalClient, type TerminalClient } from './clients/terminal-client.js';
import { systemClock, type Clock } from './clock.js';
import { askManagementPorts, type PortAnswer } from './diagnostics/management-port.js';
import { measureDiagnostics } from './diagnostics/measure.js';
import { DiscoveryPort, type PortDirectory } from './discovery-port.js';
import { HeardTerminals, type HeardDirectory } from './heard-terminals.js';
import { setLanguage } from './i18n.js';
import type { InterfaceTable } from './interfaces.js';
import { LIMITED_BROADCAST, probeAddresses as localProbeAddresses } from './network.js';
import type { ConsoleSettings as Settings } from './settings.js';
import { TerminalDirectory } from './terminal-directory.js';
import { Workbench } from './workbench.js';

export { MIN_PROBE_INTERVAL_MS } from './discovery-port.js';

const DEFAULT_SETTINGS: ConsoleSettings = { language: null };

export interface ConsoleServiceDeps {
  directory: HeardDirectory &
    PortDirectory &
    Pick<TerminalDirectory, 'list' | 'centrals' | 'dropCounts' | 'probe' | 'onChange' | 'start'>;
  clock?: Clock;
  /** Where a probe goes; asked at each probe, since interfaces come and go in the field. */
  probeAddresses?: () => readonly string[];
  /** This laptop's interfaces, asked each time (they come and go). */
  interfaces?: () => InterfaceTable;
  terminalClient?: TerminalClient;
  discoveryPort?: number;
  release?: string;
  checkinTimeoutMs?: number;
  /** Where the site's pages are fetched in the web layer (default: the central address). */
  siteUrl?: string;
  platform?: NodeJS.Platform;
  procRoot?: string;
  /** Terminal changes within this window reach a listener as one list. */
  changeBatchMs?: number;
  /** Asks an address on the terminals' management ports (diagnostics of a silent terminal). */
  askPorts?: (address: string) => Promise<PortAnswer[]>;
  /** Where each site's acceptance session is kept, so a restart resumes it. */
  sessionStore?: SessionStore;
}

export type ConsoleService = ConsoleApi & { resume(): Promise<void> };

/** The core behind `ConsoleApi`; the main process and the browser shell wire it to the renderer. */
export function createConsoleService({
  directory,
  clock = systemClock,
  probeAddresses = () => [LIMITED_BROADCAST],
  interfaces = () => networkInterfaces(),
  terminalClient = createTerminalClient(),
  discoveryPort,
  release = 'unknown',
  checkinTimeoutMs,
  siteUrl,
  platform = process.platform,
  procRoot = '/proc',
  changeBatchMs = 100,
  askPorts = (address) => askManagementPorts(address),
  sessionStore,
}: ConsoleServiceDeps): ConsoleService {
  const heard = new HeardTerminals(directory, clock, interfaces);
  const port = new DiscoveryPort(directory, {
    clock,
    probeAddresses,
    discoveryPort,
    platform,
    procRoot,
  });
  const workbench = new Workbench({
    clock,
    terminalClient,
    terminals: () => directory.list(),
    offline: () => heard.offline(),
    release,
    ...(checkinTimeoutMs !== undefined && { checkinTimeoutMs }),
    ...(siteUrl !== undefined && { siteUrl }),
    probe: () => port.probe(),
    ...(sessionStore && { store: sessionStore }),
  });
  // A terminal announcing another central address than its push proved: the report relying on
  // that proof is outdated at once, not when someone next looks.
  directory.onChange((change) => {
    if (change.type.startsWith('terminal-')) void workbench.reviewProofs().catch(() => undefined);
  });
  const measure = { directory, heard, clock, interfaces, discoveryPort, platform, procRoot };
  let settings: ConsoleSettings | null = null;

  return {
    listTerminals: () => Promise.resolve(heard.list()),
    listCentrals: () => Promise.resolve(directory.centrals()),
    getDropCounts: () => Promise.resolve(directory.dropCounts()),
    getStatus: () => port.status(),
    probe: () => port.probe(),
    listenAgain: () => port.listenAgain(),
    onTerminalsChanged: (listener) => heard.onChanged(listener, changeBatchMs),
    terminalsCsv: () => Promise.resolve(heard.csv()),
    diagnose: (expectedAddress) =>
      measureDiagnostics(
        { ...measure, askPorts, pushes: () => workbench.pushes() },
        expectedAddress,
      ),
    getCentral: () => workbench.centralState(),
    setCentral: (url) => workbench.setCentral(url),
    signIn: (username, password, code) => workbench.signIn(username, password, code),
    signOut: () => workbench.signOut(),
    changePassword: (current, next) => workbench.changePassword(current, next),
    push: (request) => workbench.push(request),
    pushProgress: () => Promise.resolve(workbench.pushProgress()),
    listPushes: () => Promise.resolve(workbench.pushes()),
    getAcceptance: () => Promise.resolve(workbench.acceptance()),
    runLayer: (id, input) => workbench.runLayer(id, input),
    confirmLayer: (id, who, note) => workbench.confirmLayer(id, { who, note }),
    finishAcceptance: (technician, site, withLayersNotRun) =>
      workbench.finish({ technician, site, withLayersNotRun }),
    recordReport: () => workbench.recordReport(),
    getReport: (format, language) => workbench.reportFile(format, language),
    getSettings: async () =>
      settings ?? (settings = (await sessionStore?.loadSettings()) ?? DEFAULT_SETTINGS),
    async setLanguage(language, keep) {
      await setLanguage(language);
      if (keep) {
        settings = { ...(await this.getSettings()), language };
        await sessionStore?.saveSettings(settings);
      }
      return this.getSettings();
    },
    resume: () => workbench.resume(),
  };
}

/**
 * The console's core as both shells start it (Electron's main process and `npm run console`):
 * the discovery port opened, the service built from the settings, the kept sessions resumed.
 * A busy or forbidden port does not stop it: `getStatus()` says why, and who holds the port.
 */
export async function startConsoleService(
  settings: Settings,
  shell: {
    release: string;
    sessionStore: SessionStore;
    report: (message: string, error: unknown) => void;
  },
): Promise<{ service: ConsoleService; directory: TerminalDirectory }> {
  const directory = new TerminalDirectory(
    { openSocket: openNodeUdpSocket, clock: systemClock, report: shell.report },
    { port: settings.discoveryPort, timeoutS: settings.discoveryTimeoutS },
  );
  await directory
    .start()
    .catch((error: unknown) => shell.report('cannot listen for terminals', error));
  const { managementPorts } = settings;
  const service = createConsoleService({
    directory,
    discoveryPort: settings.discoveryPort,
    probeAddresses: () => settings.probeAddresses ?? localProbeAddresses(networkInterfaces()),
    release: shell.release,
    ...(settings.siteUrl !== null && { siteUrl: settings.siteUrl }),
    ...(managementPorts !== null && {
      askPorts: (address: string) => askManagementPorts(address, { ports: managementPorts }),
    }),
    sessionStore: shell.sessionStore,
  });
  await service.resume();
  return { service, directory };
}
