// `npm run console`: the console in a browser, for machines without Electron's binary.
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { createConsoleService } from '../core/api.js';
import { systemClock } from '../core/clock.js';
import { probeAddresses } from '../core/network.js';
import { settingsFromEnv } from '../core/settings.js';
import { TerminalDirectory } from '../core/terminal-directory.js';
import { openNodeUdpSocket } from '../core/udp.js';
import { startBrowserShell } from './browser-shell.js';

const report = (message: string, error: unknown): void =>
  console.error(`[svc console] ${message}`, error);

async function main(): Promise<void> {
  const settings = settingsFromEnv(process.env);
  const directory = new TerminalDirectory(
    { openSocket: openNodeUdpSocket, clock: systemClock, report },
    { port: settings.discoveryPort, timeoutS: settings.discoveryTimeoutS },
  );
  // A busy port must not stop the console: the diagnostics panel says who holds it.
  await directory.start().catch((error: unknown) => report('cannot listen for terminals', error));
  const service = createConsoleService({
    directory,
    discoveryPort: settings.discoveryPort,
    probeAddresses: () => settings.probeAddresses ?? probeAddresses(networkInterfaces()),
    release: process.env.npm_package_version ?? '0.1.0',
    ...(settings.siteUrl !== null && { siteUrl: settings.siteUrl }),
  });
  const shell = await startBrowserShell(service, {
    rendererDir: path.join(import.meta.dirname, '..', 'renderer'),
  });
  console.log(`console: ${shell.url}`);
  await service.probe();
  const stop = () => {
    void shell
      .close()
      .then(() => directory.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  report('failed to start', error);
  process.exit(1);
});
