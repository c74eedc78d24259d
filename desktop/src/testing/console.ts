import { openNodeUdpSocket } from '@svc/shared/udp';
import { systemClock } from '../core/clock.js';
import { createConsoleService, type ConsoleServiceDeps } from '../core/console-service.js';
import { TerminalDirectory } from '../core/terminal-directory.js';

/**
 * The console's core listening on the discovery port `port` with a real socket and the system's
 * clock, for tests against real terminals and a real central service. Close `directory` after.
 */
export async function listeningConsole(
  port: number,
  deps: Omit<ConsoleServiceDeps, 'directory'> = {},
): Promise<{ directory: TerminalDirectory; api: ReturnType<typeof createConsoleService> }> {
  const directory = new TerminalDirectory(
    { openSocket: openNodeUdpSocket, clock: systemClock },
    { port },
  );
  await directory.start();
  return { directory, api: createConsoleService({ directory, ...deps }) };
}
