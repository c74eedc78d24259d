// Preload: exposes ONE typed object, window.svcConsole, and nothing else. It is CommonJS and
// requires nothing but `electron` because a sandboxed preload can do no more; the channel names
// are typed against src/core/ipc.ts so they cannot drift from the main process.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS is what a sandboxed preload runs
import electron = require('electron');
import type { ConsoleApi, ConsoleTerminal } from '../core/api.js';
import type { DesktopFiles, IPC_CHANNELS, SAVE_FILE_CHANNEL } from '../core/ipc.js';

const { contextBridge, ipcRenderer } = electron;

const channels: typeof IPC_CHANNELS = {
  listTerminals: 'svc-console:list-terminals',
  listCentrals: 'svc-console:list-centrals',
  getDropCounts: 'svc-console:get-drop-counts',
  getStatus: 'svc-console:get-status',
  probe: 'svc-console:probe',
  listenAgain: 'svc-console:listen-again',
  terminalsCsv: 'svc-console:terminals-csv',
  diagnose: 'svc-console:diagnose',
  getCentral: 'svc-console:get-central',
  setCentral: 'svc-console:set-central',
  signIn: 'svc-console:sign-in',
  signOut: 'svc-console:sign-out',
  changePassword: 'svc-console:change-password',
  push: 'svc-console:push',
  pushProgress: 'svc-console:push-progress',
  listPushes: 'svc-console:list-pushes',
  getAcceptance: 'svc-console:get-acceptance',
  runLayer: 'svc-console:run-layer',
  confirmLayer: 'svc-console:confirm-layer',
  finishAcceptance: 'svc-console:finish-acceptance',
  recordReport: 'svc-console:record-report',
  getReport: 'svc-console:get-report',
  getSettings: 'svc-console:get-settings',
  setLanguage: 'svc-console:set-language',
  terminalsChanged: 'svc-console:terminals-changed',
};

const saveFileChannel: typeof SAVE_FILE_CHANNEL = 'svc-console:save-file';

type Result<M extends keyof ConsoleApi> = Awaited<ReturnType<ConsoleApi[M]>>;

const svcConsole = {
  listTerminals: () =>
    ipcRenderer.invoke(channels.listTerminals) as Promise<Result<'listTerminals'>>,
  listCentrals: () => ipcRenderer.invoke(channels.listCentrals) as Promise<Result<'listCentrals'>>,
  getDropCounts: () =>
    ipcRenderer.invoke(channels.getDropCounts) as Promise<Result<'getDropCounts'>>,
  getStatus: () => ipcRenderer.invoke(channels.getStatus) as Promise<Result<'getStatus'>>,
  probe: () => ipcRenderer.invoke(channels.probe) as Promise<Result<'probe'>>,
  listenAgain: () => ipcRenderer.invoke(channels.listenAgain) as Promise<Result<'listenAgain'>>,
  terminalsCsv: () => ipcRenderer.invoke(channels.terminalsCsv) as Promise<Result<'terminalsCsv'>>,
  diagnose: (address) =>
    ipcRenderer.invoke(channels.diagnose, address) as Promise<Result<'diagnose'>>,
  getCentral: () => ipcRenderer.invoke(channels.getCentral) as Promise<Result<'getCentral'>>,
  setCentral: (url) =>
    ipcRenderer.invoke(channels.setCentral, url) as Promise<Result<'setCentral'>>,
  signIn: (username, password, code) =>
    ipcRenderer.invoke(
      channels.signIn,
      username,
      password,
      ...(code === undefined ? [] : [code]),
    ) as Promise<Result<'signIn'>>,
  signOut: () => ipcRenderer.invoke(channels.signOut) as Promise<Result<'signOut'>>,
  changePassword: (current, next) =>
    ipcRenderer.invoke(channels.changePassword, current, next) as Promise<Result<'changePassword'>>,
  push: (request) => ipcRenderer.invoke(channels.push, request) as Promise<Result<'push'>>,
  pushProgress: () => ipcRenderer.invoke(channels.pushProgress) as Promise<Result<'pushProgress'>>,
  listPushes: () => ipcRenderer.invoke(channels.listPushes) as Promise<Result<'listPushes'>>,
  getAcceptance: () =>
    ipcRenderer.invoke(channels.getAcceptance) as Promise<Result<'getAcceptance'>>,
  runLayer: (id, input) =>
    ipcRenderer.invoke(channels.runLayer, id, input) as Promise<Result<'runLayer'>>,
  confirmLayer: (id, who, note) =>
    ipcRenderer.invoke(channels.confirmLayer, id, who, note) as Promise<Result<'confirmLayer'>>,
  finishAcceptance: (technician, site, withLayersNotRun) =>
    ipcRenderer.invoke(channels.finishAcceptance, technician, site, withLayersNotRun) as Promise<
      Result<'finishAcceptance'>
    >,
  recordReport: () => ipcRenderer.invoke(channels.recordReport) as Promise<Result<'recordReport'>>,
  getReport: (format, language) =>
    ipcRenderer.invoke(
      channels.getReport,
      format,
      ...(language === undefined ? [] : [language]),
    ) as Promise<Result<'getReport'>>,
  getSettings: () => ipcRenderer.invoke(channels.getSettings) as Promise<Result<'getSettings'>>,
  setLanguage: (language, keep) =>
    ipcRenderer.invoke(channels.setLanguage, language, keep) as Promise<Result<'setLanguage'>>,
  // Electron only: a download goes through the system's save dialog.
  saveFile: (filename, base64) =>
    ipcRenderer.invoke(saveFileChannel, filename, base64) as Promise<boolean>,
  onTerminalsChanged(listener) {
    // The renderer gets the data only, never the IPC event (which carries the sender).
    const forward = (_event: Electron.IpcRendererEvent, terminals: ConsoleTerminal[]): void =>
      listener(terminals);
    ipcRenderer.on(channels.terminalsChanged, forward);
    return () => {
      ipcRenderer.removeListener(channels.terminalsChanged, forward);
    };
  },
} satisfies ConsoleApi & DesktopFiles;

contextBridge.exposeInMainWorld('svcConsole', svcConsole);
