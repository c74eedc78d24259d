import type { ConsoleTerminal } from './api.js';
import type { Clock } from './clock.js';
import { interfaceFor, localInterfaces, type InterfaceTable } from './interfaces.js';
import type { TerminalDirectory, TerminalEntry } from './terminal-directory.js';

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

export type HeardDirectory = Pick<TerminalDirectory, 'list' | 'status' | 'onChange'>;

/**
 * The terminals as the console lists them: those heard now and those gone offline since (kept,
 * marked offline), each with the laptop interface it was heard on; and when the discovery port
 * last heard anything, and since when it listens (for diagnostics of a silent LAN).
 */
export class HeardTerminals {
  readonly #offline = new Map<string, TerminalEntry>();
  #lastHeardAt: number | null = null;
  #listeningSince: number | null;

  constructor(
    private readonly directory: HeardDirectory,
    private readonly clock: Clock,
    /** This laptop's interfaces, asked each time (they come and go). */
    private readonly interfaces: () => InterfaceTable,
  ) {
    this.#listeningSince = directory.status().listening ? clock.now() : null;
    directory.onChange((change) => {
      if (change.type === 'terminal-offline')
        this.#offline.set(change.terminal.id, change.terminal);
      if (change.type === 'terminal-online') this.#offline.delete(change.terminal.id);
      if (change.type === 'status') {
        this.#listeningSince = change.status.listening
          ? (this.#listeningSince ?? clock.now())
          : null;
      } else if (change.type !== 'terminal-offline' && change.type !== 'central-offline') {
        this.#lastHeardAt = clock.now();
      }
    });
  }

  get lastHeardAt(): number | null {
    return this.#lastHeardAt;
  }

  get listeningSince(): number | null {
    return this.#listeningSince;
  }

  /** Terminals gone silent since they were heard. */
  offline(): TerminalEntry[] {
    return [...this.#offline.values()];
  }

  /** Online first, then those gone offline, sorted by id. */
  list(): ConsoleTerminal[] {
    const locals = localInterfaces(this.interfaces());
    const mark = (t: TerminalEntry, online: boolean): ConsoleTerminal => {
      const i = interfaceFor(t.address, locals);
      return { ...t, heardOn: i ? `${i.name} (${i.cidr})` : null, online };
    };
    const on = this.directory.list();
    const ids = new Set(on.map((t) => t.id));
    const off = this.offline().filter((t) => !ids.has(t.id));
    return [...on.map((t) => mark(t, true)), ...off.map((t) => mark(t, false))].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
  }

  /** The list as CSV (what the table shows), safe to open in a spreadsheet. */
  csv(): string {
    return (
      [
        CSV_COLUMNS.join(','),
        ...this.list().map((t) => CSV_COLUMNS.map((c) => csvCell(t[c])).join(',')),
      ].join('\r\n') + '\r\n'
    );
  }

  /**
   * Calls `listener` with the whole list after terminal changes, once per `batchMs`: 500
   * terminals answering a probe are 500 changes within milliseconds, and building the list for
   * each would starve the socket.
   */
  onChanged(listener: (terminals: ConsoleTerminal[]) => void, batchMs: number): () => void {
    let pending: ReturnType<typeof setTimeout> | null = null;
    const off = this.directory.onChange((change) => {
      if (!change.type.startsWith('terminal-') || pending) return;
      pending = setTimeout(() => {
        pending = null;
        listener(this.list());
      }, batchMs);
    });
    return () => {
      off();
      if (pending) clearTimeout(pending);
    };
  }
}
