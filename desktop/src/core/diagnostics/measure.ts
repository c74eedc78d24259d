import { readFile } from 'node:fs/promises';
import type { DiagnosticsReport } from '../api.js';
import type { Clock } from '../clock.js';
import type { HeardTerminals } from '../heard-terminals.js';
import { interfaceFor, localInterfaces, type InterfaceTable } from '../interfaces.js';
import type { PushResult } from '../push/push.js';
import type { TerminalDirectory } from '../terminal-directory.js';
import { diagnose } from './diagnostics.js';
import { goneTerminals } from './gone.js';
import type { PortAnswer } from './management-port.js';
import { udpPortHolders } from './port-holders.js';

export interface MeasureDeps {
  directory: Pick<TerminalDirectory, 'status' | 'list'>;
  heard: HeardTerminals;
  clock: Clock;
  interfaces: () => InterfaceTable;
  discoveryPort: number | undefined;
  platform: NodeJS.Platform;
  procRoot: string;
  /** Asks an address on the terminals' management ports (a terminal that is not heard). */
  askPorts: (address: string) => Promise<PortAnswer[]>;
  /** The pushes made so far (a terminal gone since its push). */
  pushes: () => PushResult[];
}

/** Linux names the machine (a virtual one cannot see the site's broadcasts): elsewhere null. */
function productName(platform: NodeJS.Platform): Promise<string | null> {
  if (platform !== 'linux') return Promise.resolve(null);
  return readFile('/sys/class/dmi/id/product_name', 'utf8').then(
    (text) => text.trim(),
    () => null,
  );
}

/** Why a terminal may not be seen, from facts measured now. */
export async function measureDiagnostics(
  deps: MeasureDeps,
  expectedAddress: string | null,
): Promise<DiagnosticsReport> {
  const { directory, heard, clock, platform, procRoot } = deps;
  const status = directory.status();
  const port = deps.discoveryPort ?? status.local?.port ?? 0;
  const locals = localInterfaces(deps.interfaces());
  const busy = !status.listening && /EADDRINUSE/.test(status.lastError ?? '');
  const listed = directory.list();
  const expectedHeard =
    expectedAddress !== null && listed.some((t) => t.address === expectedAddress);
  const notHeard =
    expectedAddress !== null && !expectedHeard && interfaceFor(expectedAddress, locals)
      ? { address: expectedAddress, answers: await deps.askPorts(expectedAddress) }
      : null;
  const findings = diagnose({
    port,
    listening: status.listening,
    lastError: status.lastError,
    holders: busy ? await udpPortHolders(port, procRoot) : [],
    ownPid: process.pid,
    interfaces: locals,
    expectedAddress,
    routed: listed
      .filter((t) => !interfaceFor(t.address, locals))
      .map((t) => ({ id: t.id, address: t.address })),
    notHeard,
    gone: goneTerminals(listed, heard.offline(), deps.pushes()),
    conflicts: listed.flatMap((t) =>
      t.conflict ? [{ id: t.id, address: t.address, other: `${t.conflict.address}` }] : [],
    ),
    listeningSince: heard.listeningSince,
    lastHeardAt: heard.lastHeardAt,
    now: clock.now(),
    platform,
    productName: await productName(platform),
  });
  return {
    at: new Date(clock.now()).toISOString(),
    port,
    listening: status.listening,
    interfaces: locals,
    findings,
  };
}
