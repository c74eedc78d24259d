// `npm run console`: the console in a browser, for machines without Electron's binary.
import path from 'node:path';
import { defaultStateDir, SessionStore } from '../core/acceptance/session-store.js';
import { startConsoleService } from '../core/console-service.js';
import { settingsFromEnv } from '../core/settings.js';
import { startBrowserShell } from './browser-shell.js';

const report = (message: string, error: unknown): void =>
  console.error(`[svc console] ${message}`, error);

/** `--port N` (or `--port=N`) on the command line wins over CONSOLE_PORT. */
function portArgument(argv: readonly string[]): string | undefined {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return undefined;
  const arg = argv[i] ?? '';
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (argv[i + 1] ?? '');
}

async function main(): Promise<void> {
  const port = portArgument(process.argv.slice(2));
  const settings = settingsFromEnv({
    ...process.env,
    ...(port !== undefined && { CONSOLE_PORT: port }),
  });
  const { service, directory } = await startConsoleService(settings, {
    release: process.env.npm_package_version ?? '0.1.0',
    // Each site's acceptance, kept across restarts (CONSOLE_STATE_DIR, or the user's state dir).
    sessionStore: new SessionStore(defaultStateDir(process.env)),
    report,
  });
  const shell = await startBrowserShell(service, {
    rendererDir: path.join(import.meta.dirname, '..', 'renderer'),
    ...(settings.httpPort !== null && { port: settings.httpPort }),
  });
  console.log(`console: ${shell.url}`);
  // A browser that lost its access (another browser, a cleared cookie) gets a fresh link.
  if (process.stdin.isTTY) console.log('Press Enter for a fresh link.');
  process.stdin.on('data', () => console.log(`console: ${shell.freshLink()}`));
  process.stdin.on('error', () => undefined);
  await service.probe();
  const stop = () => {
    process.stdin.destroy();
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
