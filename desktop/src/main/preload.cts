// Preload: exposes ONE typed object, window.svcConsole, and nothing else. It is CommonJS and
// requires nothing but `electron` because a sandboxed preload can do no more. Its methods are the
// one list of src/core/ipc.ts, which the build writes in ahead of this file (SVC_CONSOLE_CHANNELS,
// scripts/preload-channels.mjs): nothing here names a method but the subscription.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS is what a sandboxed preload runs
import electron = require('electron');
import type { ConsoleApi, ConsoleTerminal } from '../core/api.js';
import type { DesktopFiles, InvokeMethod, PreloadChannels } from '../core/ipc.js';

declare const SVC_CONSOLE_CHANNELS: PreloadChannels;

const { contextBridge, ipcRenderer } = electron;
const channels = SVC_CONSOLE_CHANNELS;

// The arguments go as they are; the main process checks them (IPC keeps an `undefined`).
const invoke =
  (channel: string) =>
  (...args: unknown[]) =>
    ipcRenderer.invoke(channel, ...args);

const requests = Object.fromEntries(
  Object.entries(channels.invoke).map(([method, channel]) => [method, invoke(channel)]),
) as Pick<ConsoleApi, InvokeMethod>;

const svcConsole = {
  ...requests,
  // Electron only: a download goes through the system's save dialog.
  saveFile: invoke(channels.saveFile) as DesktopFiles['saveFile'],
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
