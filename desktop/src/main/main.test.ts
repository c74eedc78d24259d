// The Electron glue, run against a recording stand-in for the `electron` module (there is no
// Electron binary on this machine): the window's settings, IPC sender and argument checks,
// navigation blocking, the app protocol, and the terminal list reaching the renderer.
import dgram from 'node:dgram';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { parseDatagram } from '@svc/shared';
import {
  IPC_CHANNELS,
  IpcArgumentError,
  SAVE_FILE_CHANNEL,
  TERMINALS_CHANGED_CHANNEL,
} from '../core/ipc.js';
import { APP_ENTRY_URL, APP_SCHEME } from '../core/security.js';
import type { TerminalEntry } from '../core/terminal-directory.js';
import { announce, closeSocket, openSender, sendTo } from '../testing/udp.js';

type Handler = (event: unknown, ...args: unknown[]) => unknown;

class FakeWebContents extends EventEmitter {
  readonly sent: { channel: string; payload: unknown }[] = [];
  windowOpenHandler: (() => unknown) | null = null;
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  setWindowOpenHandler(handler: () => unknown): void {
    this.windowOpenHandler = handler;
  }
}

const userDir = mkdtempSync(path.join(os.tmpdir(), 'svc-main-test-'));
/** What the save dialog was asked, and where the technician "chose" to save. */
const saveDialog = { asked: [] as { defaultPath: string }[], answer: '' as string | null };

const app = Object.assign(new EventEmitter(), {
  sandboxEnabled: false,
  exitCode: null as number | null,
  enableSandbox() {
    app.sandboxEnabled = true;
  },
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  getVersion: () => '0.1.0',
  getPath: (name: string) => path.join(userDir, name),
  quit: () => undefined,
  exit(code: number) {
    app.exitCode = code;
  },
});

class FakeBrowserWindow extends EventEmitter {
  static readonly instances: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loadedUrl: string | null = null;
  constructor(readonly options: { webPreferences: Record<string, unknown> }) {
    super();
    FakeBrowserWindow.instances.push(this);
    app.emit('web-contents-created', {}, this.webContents);
  }
  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    return Promise.resolve();
  }
  isDestroyed = () => false;
  isMinimized = () => false;
  show = () => undefined;
  restore = () => undefined;
  focus = () => undefined;
}

const ipcHandlers = new Map<string, Handler>();
const protocolState = {
  privileged: [] as unknown[],
  handlers: new Map<string, (request: { url: string }) => Promise<Response>>(),
};
const sessionState = {
  permissionRequest: null as
    ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null,
  permissionCheck: null as (() => boolean) | null,
  beforeRequest: null as
    ((details: { url: string }, callback: (response: { cancel: boolean }) => void) => void) | null,
};

jest.unstable_mockModule('electron', () => ({
  app,
  BrowserWindow: FakeBrowserWindow,
  dialog: {
    showSaveDialog: (_window: unknown, options: { defaultPath: string }) => {
      saveDialog.asked.push(options);
      return Promise.resolve(
        saveDialog.answer === null
          ? { canceled: true, filePath: '' }
          : { canceled: false, filePath: saveDialog.answer },
      );
    },
  },
  ipcMain: { handle: (channel: string, handler: Handler) => ipcHandlers.set(channel, handler) },
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown[]) => protocolState.privileged.push(...schemes),
    handle: (scheme: string, handler: (request: { url: string }) => Promise<Response>) =>
      protocolState.handlers.set(scheme, handler),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (handler: typeof sessionState.permissionRequest) => {
        sessionState.permissionRequest = handler;
      },
      setPermissionCheckHandler: (handler: typeof sessionState.permissionCheck) => {
        sessionState.permissionCheck = handler;
      },
      webRequest: {
        onBeforeRequest: (handler: typeof sessionState.beforeRequest) => {
          sessionState.beforeRequest = handler;
        },
      },
    },
  },
}));

const fromApp = { senderFrame: { url: APP_ENTRY_URL } };
let receiver: dgram.Socket;
let probeHeard: Promise<Buffer>;
let window: FakeBrowserWindow;

beforeAll(async () => {
  // Stands where a central service would: on the discovery port, sharing it (SO_REUSEADDR).
  receiver = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  await new Promise<void>((resolve) => receiver.bind(0, '0.0.0.0', resolve));
  probeHeard = new Promise((resolve) => receiver.once('message', (payload) => resolve(payload)));
  process.env.DISCOVERY_PORT = String(receiver.address().port);
  process.env.DISCOVERY_PROBE_ADDRESSES = '127.255.255.255';

  await import('./main.js');
  for (let i = 0; i < 100 && FakeBrowserWindow.instances.length === 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const created = FakeBrowserWindow.instances[0];
  if (!created) throw new Error('main did not create a window');
  window = created;
});

afterAll(async () => {
  app.emit('will-quit');
  await closeSocket(receiver);
  delete process.env.DISCOVERY_PORT;
  delete process.env.DISCOVERY_PROBE_ADDRESSES;
  rmSync(userDir, { recursive: true, force: true });
});

describe('main process', () => {
  it('sandboxes every renderer and creates an isolated window on the app page', () => {
    expect(app.sandboxEnabled).toBe(true);
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    const prefs = window.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(prefs.preload).toBe(path.join(import.meta.dirname, 'preload.cjs'));
    expect(window.loadedUrl).toBe(APP_ENTRY_URL);
    expect(app.exitCode).toBeNull();
  });

  it('probes the LAN once at start, on the discovery port', async () => {
    const payload = await probeHeard;
    expect(parseDatagram(payload)).toEqual({
      ok: true,
      datagram: { svc: 'discovery', v: 1, type: 'probe' },
    });
  });

  it('blocks navigation, redirects, webviews and new windows', () => {
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      let prevented = false;
      window.webContents.emit(event, { preventDefault: () => (prevented = true) }, 'https://x.y');
      expect(prevented).toBe(true);
    }
    expect(window.webContents.windowOpenHandler?.()).toEqual({ action: 'deny' });
  });

  it('grants no permission and loads nothing but the app scheme', () => {
    let granted: boolean | null = null;
    sessionState.permissionRequest?.({}, 'media', (value) => (granted = value));
    expect(granted).toBe(false);
    expect(sessionState.permissionCheck?.()).toBe(false);
    const cancelled = (url: string) => {
      let cancel: boolean | null = null;
      sessionState.beforeRequest?.({ url }, (response) => (cancel = response.cancel));
      return cancel;
    };
    expect(cancelled('https://example.com/x.js')).toBe(true);
    expect(cancelled('http://192.168.1.20:8182/api/config')).toBe(true);
    expect(cancelled(APP_ENTRY_URL)).toBe(false);
  });

  it('serves the app scheme from the renderer directory only', async () => {
    expect(protocolState.privileged).toEqual([
      { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    const handler = protocolState.handlers.get(APP_SCHEME);
    if (!handler) throw new Error('no protocol handler');
    for (const url of [
      'svc-console://app/..%2f..%2fpackage.json',
      'svc-console://app/main/main.ts',
      'svc-console://elsewhere/index.html',
      'svc-console://app/missing.js',
    ]) {
      expect((await handler({ url })).status).toBe(404);
    }
    // Run from src/main, the renderer directory is src/renderer: its page gets a fresh nonce.
    const pages = [await handler({ url: APP_ENTRY_URL }), await handler({ url: APP_ENTRY_URL })];
    const nonces = await Promise.all(
      pages.map(async (page) => {
        expect(page.status).toBe(200);
        const nonce = /name="csp-nonce" content="([^"]+)"/.exec(await page.text())?.[1] ?? '';
        expect(page.headers.get('content-security-policy')).toContain(`'nonce-${nonce}'`);
        return nonce;
      }),
    );
    expect(nonces[0]).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('answers IPC from the console page only, with validated arguments', async () => {
    const list = ipcHandlers.get(IPC_CHANNELS.listTerminals);
    if (!list) throw new Error('no handler');
    expect(await list(fromApp)).toEqual([]);
    expect(() => list({ senderFrame: { url: 'https://evil.example/' } })).toThrow('IPC refused');
    expect(() => list({ senderFrame: null })).toThrow('IPC refused');
    await expect(list(fromApp, 'extra')).rejects.toBeInstanceOf(IpcArgumentError);
    expect([...ipcHandlers.keys()].sort()).toEqual(
      [...Object.values(IPC_CHANNELS), SAVE_FILE_CHANNEL].sort(),
    );
  });

  it('pushes the terminal list to the window when a terminal announces', async () => {
    const sender = await openSender();
    try {
      // Unicast reaches the socket bound last on the port: the console's.
      await sendTo(
        sender,
        announce({ id: 'DSP-0042', kind: 'display', port: 8181 }),
        Number(process.env.DISCOVERY_PORT),
      );
      let pushed: TerminalEntry[] | undefined;
      for (let i = 0; i < 200 && !pushed; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        pushed = window.webContents.sent.find(
          (message) => message.channel === TERMINALS_CHANGED_CHANNEL,
        )?.payload as TerminalEntry[] | undefined;
      }
      expect(pushed?.map((terminal) => [terminal.id, terminal.address])).toEqual([
        ['DSP-0042', '127.0.0.1'],
      ]);
      const list = ipcHandlers.get(IPC_CHANNELS.listTerminals);
      expect(await list?.(fromApp)).toEqual(pushed);
    } finally {
      await closeSocket(sender);
    }
  });

  it('saves a download where the save dialog says, and nothing when it is cancelled', async () => {
    const save = ipcHandlers.get(SAVE_FILE_CHANNEL);
    saveDialog.answer = path.join(userDir, 'chosen.pdf');
    const base64 = Buffer.from('%PDF-1.7 report').toString('base64');
    expect(await save?.(fromApp, 'svc-handover-2026-11-28.pdf', base64)).toBe(true);
    expect(saveDialog.asked.at(-1)?.defaultPath).toBe(
      path.join(userDir, 'downloads', 'svc-handover-2026-11-28.pdf'),
    );
    expect(readFileSync(saveDialog.answer, 'utf8')).toBe('%PDF-1.7 report');
    saveDialog.answer = null;
    expect(await save?.(fromApp, 'terminals.csv', base64)).toBe(false);
    await expect(save?.(fromApp, '../escape.csv', base64)).rejects.toThrow('refused');
    await expect(
      save?.({ senderFrame: { url: 'https://evil.example/' } }, 'x.csv', base64),
    ).rejects.toThrow('not the console page');
  });
});
