import type { ConsoleServiceDeps } from '../core/console-service.js';
import type { DiagnosticFacts } from '../core/diagnostics/diagnostics.js';
import type { DropCounts } from '../core/terminal-directory.js';

/** No datagram dropped, for any reason. */
export const NO_DROPS: DropCounts = {
  oversize: 0,
  not_json: 0,
  not_object: 0,
  wrong_service: 0,
  unknown_version: 0,
  unknown_type: 0,
  bad_field: 0,
};

/** A directory stand-in: listening, nothing heard. */
export const quietDirectory: ConsoleServiceDeps['directory'] = {
  list: () => [],
  centrals: () => [],
  dropCounts: () => NO_DROPS,
  status: () => ({ listening: true, local: null, lastError: null }),
  probe: () => Promise.resolve([]),
  onChange: () => () => undefined,
  start: () => Promise.resolve(),
};

/**
 * What diagnostics measured, as on a laptop where all is well (listening on 20785 since 0, last
 * heard at 0, a second ago), with `changes` on top.
 */
export function diagnosticFacts(changes: Partial<DiagnosticFacts> = {}): DiagnosticFacts {
  return {
    port: 20785,
    listening: true,
    lastError: null,
    holders: [],
    ownPid: 1,
    interfaces: [],
    expectedAddress: null,
    routed: [],
    notHeard: null,
    conflicts: [],
    gone: [],
    listeningSince: 0,
    lastHeardAt: 0,
    now: 1000,
    platform: 'linux',
    productName: null,
    ...changes,
  };
}
