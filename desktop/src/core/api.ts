import type { AcceptanceState, LayerId } from './acceptance/layers.js';
import type { LayerInput } from './acceptance/runner.js';
import type { Finding } from './diagnostics/diagnostics.js';
import type { SocketProblem } from './diagnostics/port-words.js';
import type { LocalInterface } from './interfaces.js';
import type { Language } from './language.js';
import type { PushResult } from './push/push.js';
import type {
  CentralEntry,
  DirectoryStatus,
  DropCounts,
  ProbeOutcome,
  TerminalEntry,
} from './terminal-directory.js';
import type { CentralState, PushProgress, PushRequestInput, ReportFile } from './workbench.js';

// The contract between the renderer and the core: data types only. The core behind it is
// console-service.ts; ipc.ts lists its request methods with the arguments each accepts.

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
