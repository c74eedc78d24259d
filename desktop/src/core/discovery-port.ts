import type { ConsoleStatus, ProbeReport } from './api.js';
import type { Clock } from './clock.js';
import { udpPortHolders } from './diagnostics/port-holders.js';
import { socketProblemOf, socketProblemWords } from './diagnostics/port-words.js';
import { t } from './i18n.js';
import type { TerminalDirectory } from './terminal-directory.js';

/** Probes closer together than this are answered with the previous report. */
export const MIN_PROBE_INTERVAL_MS = 1000;

export type PortDirectory = Pick<TerminalDirectory, 'status' | 'start' | 'probe'> & {
  readonly port?: number;
};

export interface DiscoveryPortOptions {
  clock: Clock;
  /** Where a probe goes; asked at each probe, since interfaces come and go in the field. */
  probeAddresses: () => readonly string[];
  /** The configured discovery port, when the directory's own is not known. */
  discoveryPort: number | undefined;
  platform: NodeJS.Platform;
  procRoot: string;
}

/**
 * The console's discovery port: whether it is open and, when not, why (naming the program that
 * holds it where the OS tells); opening it again; and the probe, at most once a second.
 */
export class DiscoveryPort {
  #lastProbe: { at: number; report: ProbeReport } | null = null;
  #inFlight: Promise<ProbeReport> | null = null;

  constructor(
    private readonly directory: PortDirectory,
    private readonly options: DiscoveryPortOptions,
  ) {}

  /** The port's status; when it is closed, why, naming its holder where the OS tells. */
  async status(): Promise<ConsoleStatus> {
    const status = this.directory.status();
    if (status.listening || !status.lastError) return { ...status, socketProblem: null };
    const port = this.options.discoveryPort ?? this.directory.port ?? 0;
    const held = /EADDRINUSE/.test(status.lastError);
    const holders = held ? await udpPortHolders(port, this.options.procRoot) : null;
    const others = holders && holders.filter((h) => h.pid !== process.pid);
    return {
      ...status,
      socketProblem: socketProblemOf(status.lastError, port, others, this.options.platform),
    };
  }

  /** Opens the discovery port again if it is closed; a failure stays in the status. */
  async listenAgain(): Promise<ConsoleStatus> {
    if (!this.directory.status().listening) await this.directory.start().catch(() => undefined);
    return this.status();
  }

  /**
   * Asks every terminal to announce at once, first opening the port again if it is closed. A
   * call within MIN_PROBE_INTERVAL_MS of the last gets that one's report, marked throttled.
   */
  probe(): Promise<ProbeReport> {
    if (this.#inFlight) return this.#inFlight;
    const last = this.#lastProbe;
    if (last && this.options.clock.now() - last.at < MIN_PROBE_INTERVAL_MS) {
      return Promise.resolve({ ...last.report, throttled: true });
    }
    this.#inFlight = this.#send().finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #send(): Promise<ProbeReport> {
    const at = this.options.clock.now();
    const sentAt = new Date(at).toISOString();
    const status = await this.listenAgain();
    const report: ProbeReport = status.listening
      ? {
          sentAt,
          throttled: false,
          outcomes: await this.directory.probe(this.options.probeAddresses()),
          error: null,
        }
      : {
          sentAt,
          throttled: false,
          outcomes: [],
          error: status.socketProblem
            ? socketProblemWords(status.socketProblem)
            : t('terminals.probe.portClosed'),
        };
    this.#lastProbe = { at, report };
    return report;
  }
}
