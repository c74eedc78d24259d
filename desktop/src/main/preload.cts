// Preload: exposes ONE typed object, window.svcConsole, and nothing else. It is CommonJS and
// requires nothing but `electron` because a sandboxed preload can do no more; the channel names
// are typed against src/core/ipc.ts so they cannot drift from the main process.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS is what a sandboxed preload runs
import electron = require('electron');
import type { ConsoleApi, TerminalEntry } from '../core/api.js';
import type { IPC_CHANNELS } from '../core/ipc.js';

const { contextBridge, ipcRenderer } = electron;

const channels: typeof IPC_CHANNELS = {
  listTerminals: 'svc-console:list-terminals',
  listCentrals: 'svc-console:list-centrals',
  getDropCounts: 'svc-console:get-drop-counts',
  getStatus: 'svc-console:get-status',
  probe: 'svc-console:probe',
  terminalsChanged: 'svc-console:terminals-changed',
};

type Result<M extends keyof ConsoleApi> = Awaited<ReturnType<ConsoleApi[M]>>;

const svcConsole = {
  listTerminals: () =>
    ipcRenderer.invoke(channels.listTerminals) as Promise<Result<'listTerminals'>>,
  listCentrals: () => ipcRenderer.invoke(channels.listCentrals) as Promise<Result<'listCentrals'>>,
  getDropCounts: () =>
    ipcRenderer.invoke(channels.getDropCounts) as Promise<Result<'getDropCounts'>>,
  getStatus: () => ipcRenderer.invoke(channels.getStatus) as Promise<Result<'getStatus'>>,
  probe: () => ipcRenderer.invoke(channels.probe) as Promise<Result<'probe'>>,
  onTerminalsChanged(listener) {
    // The renderer gets the data only, never the IPC event (which carries the sender).
    const forward = (_event: Electron.IpcRendererEvent, terminals: TerminalEntry[]): void =>
      listener(terminals);
    ipcRenderer.on(channels.terminalsChanged, forward);
    return () => {
      ipcRenderer.removeListener(channels.terminalsChanged, forward);
    };
  },
} satisfies ConsoleApi;

contextBridge.exposeInMainWorld('svcConsole', svcConsole);
