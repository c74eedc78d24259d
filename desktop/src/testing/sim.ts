import {
  startDevice,
  startTerminal,
  type DeviceHandle,
  type TerminalHandle,
  type TerminalOptions,
} from '@svc/sim';

/** Where simulated terminals broadcast: every console and central service bound on loopback. */
export const LOOPBACK_BROADCAST = '127.255.255.255';

/**
 * A simulated terminal on this machine's loopback (127.0.0.1 unless `extra` says otherwise),
 * announcing on `discoveryPort` every 2 s, its management port one the system picks, its
 * periodic check-in off.
 */
export function loopbackTerminal(
  discoveryPort: number,
  id: string,
  kind: 'enrollment' | 'display',
  extra: Partial<TerminalOptions> = {},
): Promise<TerminalHandle> {
  return startTerminal({
    id,
    kind,
    httpPort: 0,
    discoveryPort,
    bindAddress: '127.0.0.1',
    broadcastAddresses: [LOOPBACK_BROADCAST],
    announceIntervalMs: 2000,
    checkinIntervalMs: 0,
    ...extra,
  });
}

/** A simulated recognition device on 127.0.0.1 (a port the system picks), its heartbeat every 2 s. */
export function loopbackDevice(sn: string): Promise<DeviceHandle> {
  return startDevice({ sn, bindAddress: '127.0.0.1', httpPort: 0, heartbeatIntervalMs: 2000 });
}
