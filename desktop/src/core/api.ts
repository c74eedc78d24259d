import { systemClock, type Clock } from './clock.js';
import { LIMITED_BROADCAST } from './network.js';
import type {
  CentralEntry,
  DirectoryStatus,
  DropCounts,
  ProbeOutcome,
  TerminalDirectory,
  TerminalEntry,
} from './terminal-directory.js';

export type { CentralEntry, DirectoryStatus, DropCounts, ProbeOutcome, TerminalEntry };

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
  /** Online terminals, sorted by id. */
  listTerminals(): Promise<TerminalEntry[]>;
  /** Central services heard answering on the LAN. */
  listCentrals(): Promise<CentralEntry[]>;
  /** Datagrams dropped since start, by reason. */
  getDropCounts(): Promise<DropCounts>;
  /** Whether the discovery port is open, and the last socket error. */
  getStatus(): Promise<DirectoryStatus>;
  /** Asks every terminal on the LAN to announce at once. */
  probe(): Promise<ProbeReport>;
  /** Calls `listener` with the whole list whenever a terminal appears, changes or goes offline. */
  onTerminalsChanged(listener: (terminals: TerminalEntry[]) => void): () => void;
}

/** Probes closer together than this are answered with the previous report. */
export const MIN_PROBE_INTERVAL_MS = 1000;

export interface ConsoleServiceDeps {
  directory: Pick<
    TerminalDirectory,
    'list' | 'centrals' | 'dropCounts' | 'status' | 'probe' | 'onChange'
  >;
  clock?: Clock;
  /** Where a probe goes; asked at each probe, since interfaces come and go in the field. */
  probeAddresses?: () => readonly string[];
}

/** The core behind `ConsoleApi`; the main process wires it to IPC. */
export function createConsoleService({
  directory,
  clock = systemClock,
  probeAddresses = () => [LIMITED_BROADCAST],
}: ConsoleServiceDeps): ConsoleApi {
  let lastProbe: { at: number; report: ProbeReport } | null = null;
  let inFlight: Promise<ProbeReport> | null = null;

  async function sendProbe(): Promise<ProbeReport> {
    const at = clock.now();
    const sentAt = new Date(at).toISOString();
    let report: ProbeReport;
    if (!directory.status().listening) {
      const reason = directory.status().lastError;
      report = {
        sentAt,
        throttled: false,
        outcomes: [],
        error: `discovery port is not open${reason ? `: ${reason}` : ''}`,
      };
    } else {
      const outcomes = await directory.probe(probeAddresses());
      report = { sentAt, throttled: false, outcomes, error: null };
    }
    lastProbe = { at, report };
    return report;
  }

  return {
    listTerminals: () => Promise.resolve(directory.list()),
    listCentrals: () => Promise.resolve(directory.centrals()),
    getDropCounts: () => Promise.resolve(directory.dropCounts()),
    getStatus: () => Promise.resolve(directory.status()),
    probe() {
      if (inFlight) return inFlight;
      if (lastProbe && clock.now() - lastProbe.at < MIN_PROBE_INTERVAL_MS) {
        return Promise.resolve({ ...lastProbe.report, throttled: true });
      }
      inFlight = sendProbe().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    onTerminalsChanged(listener) {
      return directory.onChange((change) => {
        if (change.type.startsWith('terminal-')) listener(directory.list());
      });
    },
  };
}
