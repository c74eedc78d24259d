import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import type { AcceptanceState, LayerId } from './acceptance/layers.js';
import type { LayerInput } from './acceptance/runner.js';
import { createTerminalClient, type TerminalClient } from './clients/terminal-client.js';
import { systemClock, type Clock } from './clock.js';
import { diagnose, type Finding } from './diagnostics/diagnostics.js';
import { askManagementPorts, type PortAnswer } from './diagnostics/management-port.js';
import { udpPortHolders } from './diagnostics/port-holders.js';
import { goneTerminals } from './diagnostics/gone.js';
import {
  socketProblemOf,
  socketProblemWords,
  type SocketProblem,
} from './diagnostics/port-words.js';
import {
  interfaceFor,
  localInterfaces,
  type InterfaceTable,
  type LocalInterface,
} from './interfaces.js';
import { LIMITED_BROADCAST } from './network.js';
import type { PushResult } from './push/push.js';
import type { SessionStore } from './acceptance/session-store.js';
import {
  Workbench,
  type CentralState,
  type PushProgress,
  type PushRequestInput,
  type ReportFile,
} from './workbench.js';
import type { Language } from './language.js';
import { setLanguage, t } from './i18n.js';
import type {
  CentralEntry,
  DirectoryStatus,
  DropCounts,
  ProbeOutcome,
  TerminalDirectory,
  TerminalEntry,
} from './terminal-directory.js';

export type { CentralEntry, DirectoryStatus, DropCounts, ProbeOutcome, TerminalEntry };
export type {
  AcceptanceState,
  CentralState,
  Finding,
  LayerId,
  LayerInput,
  LocalInterface,
  PushProgress,
  PushRequestInput,
  PushResult,
  ReportFile,
};

/** A terminal as the console lists it: what it announced, where it was heard, whether online. */
export interface ConsoleTerminal extends TerminalEntry {
  /** The laptop interface whose subnet holds the terminal's address, e.g. "eth1 (10.1.0.0/24)". */
  heardOn: string | null;
  /** False once silent for longer than DISCOVERY_TIMEOUT (kept in the list, marked offline). */
  online: boolean;
}

/** The discovery port's state, and when it is not open, why in a code and values. */
export interface ConsoleStatus extends DirectoryStatus {
  socketProblem: SocketProblem | null;
}

export interface DiagnosticsReport {
  at: string;
  port: number;
  listening: boolean;
  interfaces: LocalInterface[];
  findings: Finding[];
}

export interface ProbeReport {
  /** When the probe was sent (for a throttled call: when the earlier one was), ISO-8601. */
  sentAt: string;
  /** True when this call came too soon after the last probe and sent nothing new. */
  throttled: boolean;
  outcomes: ProbeOutcome[];
  /** Why nothing could be sent (the discovery port is not open), or null. */
  error: string | null;
}

/**
 * What the renderer may ask of the main process: the preload exposes exactly this object
 * (`window.svcConsole`), and the browser harness implements it too. Every value is plain data.
 */
export interface ConsoleApi {
  /** Terminals heard (online first, then those gone offline since), sorted by id. */
  listTerminals(): Promise<ConsoleTerminal[]>;
  /** Central services heard answering on the LAN. */
  listCentrals(): Promise<CentralEntry[]>;
  /** Datagrams dropped since start, by reason. */
  getDropCounts(): Promise<DropCounts>;
  /** Whether the discovery port is open, and the last socket error. */
  getStatus(): Promise<ConsoleStatus>;
  /**
   * Asks every terminal on the LAN to announce at once. When the discovery port is not open
   * (another program held it), it first tries to open it again.
   */
  probe(): Promise<ProbeReport>;
  /** Tries to open the discovery port again (after another program let it go). */
  listenAgain(): Promise<ConsoleStatus>;
  /** Calls `listener` with the whole list whenever a terminal appears, changes or goes offline. */
  onTerminalsChanged(listener: (terminals: ConsoleTerminal[]) => void): () => void;
  /** The terminal list as CSV (what the table shows). */
  terminalsCsv(): Promise<string>;
  /** Why a terminal may not be seen, from facts measured now. */
  diagnose(expectedAddress: string | null): Promise<DiagnosticsReport>;
  getCentral(): Promise<CentralState>;
  setCentral(url: string): Promise<CentralState>;
  /**
   * The password (and the two-factor code, when the account has one) goes to the central
   * service's login and is not kept. An account that needs a code and got none answers with
   * `codeRequired` set, not an error.
   */
  signIn(username: string, password: string, code?: string): Promise<CentralState>;
  signOut(): Promise<CentralState>;
  /** Changes the signed-in account's password at the central service; neither is kept. */
  changePassword(currentPassword: string, newPassword: string): Promise<CentralState>;
  /** Pushes the central (and, to displays, panel) address and proves each push. */
  push(request: PushRequestInput): Promise<PushResult[]>;
  /** While pushes run: where each of their terminals is (saving, reading back, checking in). */
  pushProgress(): Promise<PushProgress[]>;
  listPushes(): Promise<PushResult[]>;
  getAcceptance(): Promise<AcceptanceState>;
  runLayer(id: LayerId, input: LayerInput): Promise<AcceptanceState>;
  confirmLayer(id: LayerId, who: string, note: string): Promise<AcceptanceState>;
  /**
   * Builds the handover report and has the central service keep it. With layers never run it
   * fails unless `withLayersNotRun` (the technician agreed; the report names them).
   */
  finishAcceptance(
    technician: string,
    site: string,
    withLayersNotRun: boolean,
  ): Promise<AcceptanceState>;
  /** Has the central service keep a finished, current report it does not keep yet. */
  recordReport(): Promise<AcceptanceState>;
  /** HTML and PDF in `language` (default: the console's); the JSON keeps its stable keys and codes. */
  getReport(format: 'html' | 'json' | 'pdf', language?: Language): Promise<ReportFile>;
  /** The technician's kept settings: the language chosen (null: the system's, the browser's). */
  getSettings(): Promise<ConsoleSettings>;
  /**
   * The core speaks `language` from now on (its sentences, the report's default); `keep` makes
   * it the technician's choice, kept with the console's settings across restarts.
   */
  setLanguage(language: Language, keep: boolean): Promise<ConsoleSettings>;
}

/** What the console keeps for the technician besides the sites' sessions. */
export interface ConsoleSettings {
  language: Language | null;
}

const DEFAULT_SETTINGS: ConsoleSettings = { language: null };

/** Probes closer together than this are answered with the previous report. */
export const MIN_PROBE_INTERVAL_MS = 1000;

export interface ConsoleServiceDeps {
  directory: Pick<
    TerminalDirectory,
    'list' | 'centrals' | 'dropCounts' | 'status' | 'probe' | 'onChange' | 'start'
  > & { readonly port?: number };
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

const CSV_COLUMNS = [
  'kind',
  'id',
  'name',
  'model',
  'version',
  'address',
  'port',
  'heardOn',
  'central',
  'lastSeen',
  'online',
] as const;

function csvCell(value: string | number | boolean | null): string {
  const text = value === null || value === undefined ? '' : String(value);
  // A leading = + - @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The core behind `ConsoleApi`; the main process wires it to IPC. */
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
}: ConsoleServiceDeps): ConsoleApi & { resume(): Promise<void> } {
  const offline = new Map<string, TerminalEntry>();
  let lastHeardAt: number | null = null;
  let listeningSince: number | null = directory.status().listening ? clock.now() : null;
  directory.onChange((change) => {
    if (change.type === 'terminal-offline') offline.set(change.terminal.id, change.terminal);
    if (change.type === 'terminal-online') offline.delete(change.terminal.id);
    if (change.type === 'status') {
      listeningSince = change.status.listening ? (listeningSince ?? clock.now()) : null;
    } else if (change.type !== 'terminal-offline' && change.type !== 'central-offline') {
      lastHeardAt = clock.now();
    }
  });
  const terminals = (): ConsoleTerminal[] => {
    const locals = localInterfaces(interfaces());
    const mark = (t: TerminalEntry, online: boolean): ConsoleTerminal => {
      const i = interfaceFor(t.address, locals);
      return { ...t, heardOn: i ? `${i.name} (${i.cidr})` : null, online };
    };
    const on = directory.list();
    const ids = new Set(on.map((t) => t.id));
    const off = [...offline.values()].filter((t) => !ids.has(t.id));
    return [...on.map((t) => mark(t, true)), ...off.map((t) => mark(t, false))].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
  };
  const workbench = new Workbench({
    clock,
    terminalClient,
    terminals: () => directory.list(),
    offline: () => [...offline.values()],
    release,
    ...(checkinTimeoutMs !== undefined && { checkinTimeoutMs }),
    ...(siteUrl !== undefined && { siteUrl }),
    // Declared below; called only after construction.
    probe: () => probe(),
    ...(sessionStore && { store: sessionStore }),
  });
  // A terminal announcing another central address than its push proved: the report relying on
  // that proof is outdated at once, not when someone next looks.
  directory.onChange((change) => {
    if (change.type.startsWith('terminal-')) void workbench.reviewProofs().catch(() => undefined);
  });
  let settings: ConsoleSettings | null = null;
  let lastProbe: { at: number; report: ProbeReport } | null = null;
  let inFlight: Promise<ProbeReport> | null = null;

  /** The port's status; when it is closed, why, naming its holder where the OS tells. */
  async function consoleStatus(): Promise<ConsoleStatus> {
    const status = directory.status();
    if (status.listening || !status.lastError) return { ...status, socketProblem: null };
    const port = discoveryPort ?? directory.port ?? 0;
    const held = /EADDRINUSE/.test(status.lastError);
    const holders = held ? await udpPortHolders(port, procRoot) : null;
    const others = holders && holders.filter((h) => h.pid !== process.pid);
    return {
      ...status,
      socketProblem: socketProblemOf(status.lastError, port, others, platform),
    };
  }

  /** Opens the discovery port again if it is closed; a failure stays in the status. */
  async function listenAgain(): Promise<ConsoleStatus> {
    if (!directory.status().listening) await directory.start().catch(() => undefined);
    return consoleStatus();
  }

  async function sendProbe(): Promise<ProbeReport> {
    const at = clock.now();
    const sentAt = new Date(at).toISOString();
    let report: ProbeReport;
    const status = await listenAgain();
    if (!status.listening) {
      report = {
        sentAt,
        throttled: false,
        outcomes: [],
        error: status.socketProblem
          ? socketProblemWords(status.socketProblem)
          : t('terminals.probe.portClosed'),
      };
    } else {
      const outcomes = await directory.probe(probeAddresses());
      report = { sentAt, throttled: false, outcomes, error: null };
    }
    lastProbe = { at, report };
    return report;
  }

  function probe(): Promise<ProbeReport> {
    if (inFlight) return inFlight;
    if (lastProbe && clock.now() - lastProbe.at < MIN_PROBE_INTERVAL_MS) {
      return Promise.resolve({ ...lastProbe.report, throttled: true });
    }
    inFlight = sendProbe().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  async function diagnostics(expectedAddress: string | null): Promise<DiagnosticsReport> {
    const status = directory.status();
    const port = discoveryPort ?? status.local?.port ?? 0;
    const locals = localInterfaces(interfaces());
    const busy = !status.listening && /EADDRINUSE/.test(status.lastError ?? '');
    const productName =
      platform === 'linux'
        ? await readFile('/sys/class/dmi/id/product_name', 'utf8').then(
            (t) => t.trim(),
            () => null,
          )
        : null;
    const heard = directory.list();
    const expectedHeard =
      expectedAddress !== null && heard.some((t) => t.address === expectedAddress);
    const notHeard =
      expectedAddress !== null && !expectedHeard && interfaceFor(expectedAddress, locals)
        ? { address: expectedAddress, answers: await askPorts(expectedAddress) }
        : null;
    const findings = diagnose({
      port,
      listening: status.listening,
      lastError: status.lastError,
      holders: busy ? await udpPortHolders(port, procRoot) : [],
      ownPid: process.pid,
      interfaces: locals,
      expectedAddress,
      routed: heard
        .filter((t) => !interfaceFor(t.address, locals))
        .map((t) => ({ id: t.id, address: t.address })),
      notHeard,
      gone: goneTerminals(heard, [...offline.values()], workbench.pushes()),
      conflicts: heard.flatMap((t) =>
        t.conflict ? [{ id: t.id, address: t.address, other: `${t.conflict.address}` }] : [],
      ),
      listeningSince,
      lastHeardAt,
      now: clock.now(),
      platform,
      productName,
    });
    return {
      at: new Date(clock.now()).toISOString(),
      port,
      listening: status.listening,
      interfaces: locals,
      findings,
    };
  }

  return {
    listTerminals: () => Promise.resolve(terminals()),
    listCentrals: () => Promise.resolve(directory.centrals()),
    getDropCounts: () => Promise.resolve(directory.dropCounts()),
    getStatus: consoleStatus,
    probe,
    listenAgain,
    onTerminalsChanged(listener) {
      // One list per burst: 500 terminals answering a probe are 500 changes within
      // milliseconds, and building the list for each would starve the socket.
      let pending: ReturnType<typeof setTimeout> | null = null;
      const off = directory.onChange((change) => {
        if (!change.type.startsWith('terminal-') || pending) return;
        pending = setTimeout(() => {
          pending = null;
          listener(terminals());
        }, changeBatchMs);
      });
      return () => {
        off();
        if (pending) clearTimeout(pending);
      };
    },
    terminalsCsv: () =>
      Promise.resolve(
        [
          CSV_COLUMNS.join(','),
          ...terminals().map((t) => CSV_COLUMNS.map((c) => csvCell(t[c])).join(',')),
        ].join('\r\n') + '\r\n',
      ),
    diagnose: diagnostics,
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
