// Electron main process: thin glue between Electron and the core (src/core), which imports no
// electron and is tested on its own. Everything decided here is a call into the core.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  protocol,
  session,
  type WebPreferences,
} from 'electron';
import { SessionStore } from '../core/acceptance/session-store.js';
import { startConsoleService } from '../core/console-service.js';
import { createIpcHandlers, saveFileArgs } from '../core/ipc.js';
import { SAVE_FILE_CHANNEL, TERMINALS_CHANGED_CHANNEL } from '../core/ipc-channels.js';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  isAppUrl,
  NONCE_PLACEHOLDER,
  resolveAppAsset,
  responseHeaders,
  secureWebPreferences,
} from '../core/security.js';
import { settingsFromEnv } from '../core/settings.js';

const here = import.meta.dirname; // dist/main
const rendererDir = path.join(here, '..', 'renderer');
const preloadPath = path.join(here, 'preload.cjs');

const report = (message: string, error: unknown): void =>
  console.error(`[svc console] ${message}`, error);

// Every renderer is sandboxed, whatever a window asks for.
app.enableSandbox();
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

// Another instance already holds the window: hand over to it.
if (!app.requestSingleInstanceLock()) app.quit();

// No window may navigate, open windows, or embed webviews; the renderer is a single page.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

async function main(): Promise<void> {
  const settings = settingsFromEnv(process.env);
  await app.whenReady();

  // The renderer is served only from its own directory, every response with the CSP.
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveAppAsset(rendererDir, request.url);
    if (!file) return new Response('not found', { status: 404 });
    try {
      if (path.basename(file) !== 'index.html') {
        return new Response(await readFile(file), { headers: responseHeaders(file) });
      }
      // A fresh nonce per page load for Mantine's one style tag (the CSP allows no other).
      const nonce = randomBytes(16).toString('base64');
      const html = (await readFile(file, 'utf8')).replace(NONCE_PLACEHOLDER, nonce);
      return new Response(html, { headers: responseHeaders(file, nonce) });
    } catch {
      return new Response('not found', { status: 404 });
    }
  });
  // No permission (camera, notifications, …) is ever granted, and nothing loads from the web.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) =>
    callback(false),
  );
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onBeforeRequest((details, callback) =>
    callback({ cancel: !isAppUrl(details.url) && !details.url.startsWith('devtools:') }),
  );

  const { service, directory } = await startConsoleService(settings, {
    release: app.getVersion(),
    // Each site's acceptance, kept across restarts in the user's own application data.
    sessionStore: new SessionStore(
      process.env.CONSOLE_STATE_DIR ?? path.join(app.getPath('userData'), 'acceptance'),
    ),
    report,
  });

  for (const { channel, handle } of createIpcHandlers(service)) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      if (!isAppUrl(event.senderFrame?.url)) throw new Error('IPC refused: not the console page');
      return handle(args);
    });
  }

  const webPreferences = secureWebPreferences(preloadPath) satisfies WebPreferences;
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'svc console',
    show: false,
    webPreferences,
  });
  window.once('ready-to-show', () => window.show());
  // Reports and CSV go where the technician chooses, through the system's save dialog.
  ipcMain.handle(SAVE_FILE_CHANNEL, async (event, ...args: unknown[]) => {
    if (!isAppUrl(event.senderFrame?.url)) throw new Error('IPC refused: not the console page');
    const parsed = saveFileArgs.safeParse(args);
    if (!parsed.success) throw new Error('the file to save was refused');
    const [filename, base64] = parsed.data;
    const choice = await dialog.showSaveDialog(window, {
      defaultPath: path.join(app.getPath('downloads'), filename),
      filters: [
        {
          name: path.extname(filename).slice(1).toUpperCase(),
          extensions: [path.extname(filename).slice(1)],
        },
      ],
    });
    if (choice.canceled || !choice.filePath) return false;
    await writeFile(choice.filePath, Buffer.from(base64, 'base64'));
    return true;
  });
  const unsubscribe = service.onTerminalsChanged((terminals) => {
    if (!window.isDestroyed()) window.webContents.send(TERMINALS_CHANGED_CHANNEL, terminals);
  });
  window.on('closed', unsubscribe);
  app.on('second-instance', () => {
    if (window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void directory.close();
  });

  await window.loadURL(APP_ENTRY_URL);
  // Ask every terminal on the LAN to announce now rather than within the next 10 s.
  await service.probe();
}

main().catch((error: unknown) => {
  report('failed to start', error);
  app.exit(1);
});
