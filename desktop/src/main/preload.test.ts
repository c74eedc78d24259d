import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import ts from 'typescript';
import type { ConsoleApi, TerminalEntry } from '../core/api.js';
import { createIpcHandlers, IPC_CHANNELS } from '../core/ipc.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

/**
 * Runs the preload the way a sandboxed renderer does: as a CommonJS script whose `require` knows
 * only `electron`, here a recording stand-in for contextBridge and ipcRenderer.
 */
function runPreload() {
  const source = readFileSync(new URL('./preload.cts', import.meta.url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: 'preload.cts',
  });
  const exposed = new Map<string, unknown>();
  const invoked: { channel: string; args: unknown[] }[] = [];
  const listeners = new Map<string, Set<Listener>>();
  const required: string[] = [];
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api),
    },
    ipcRenderer: {
      invoke: (channel: string, ...args: unknown[]) => {
        invoked.push({ channel, args });
        return Promise.resolve({ channel });
      },
      on: (channel: string, listener: Listener) => {
        const set = listeners.get(channel) ?? new Set();
        set.add(listener);
        listeners.set(channel, set);
      },
      removeListener: (channel: string, listener: Listener) => {
        listeners.get(channel)?.delete(listener);
      },
    },
  };
  const module = { exports: {} };
  vm.runInNewContext(outputText, {
    require: (name: string) => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    },
    module,
    exports: module.exports,
  });
  return { exposed, invoked, listeners, required };
}

describe('preload', () => {
  it('requires only electron and exposes exactly one object, window.svcConsole', () => {
    const { exposed, required } = runPreload();
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['svcConsole']);
  });

  it('exposes every ConsoleApi method, each reaching its IPC channel with no extra argument', async () => {
    const { exposed, invoked } = runPreload();
    const api = exposed.get('svcConsole') as ConsoleApi;
    const methods: (keyof ConsoleApi | 'saveFile')[] = [
      'listTerminals',
      'listCentrals',
      'getDropCounts',
      'getStatus',
      'probe',
      'listenAgain',
      'onTerminalsChanged',
      'terminalsCsv',
      'diagnose',
      'getCentral',
      'setCentral',
      'signIn',
      'signOut',
      'changePassword',
      'push',
      'pushProgress',
      'listPushes',
      'getAcceptance',
      'runLayer',
      'confirmLayer',
      'finishAcceptance',
      'recordReport',
      'getReport',
      'getSettings',
      'setLanguage',
      'saveFile',
    ];
    expect(Object.keys(api).sort()).toEqual([...methods].sort());

    await api.listTerminals();
    await api.listCentrals();
    await api.getDropCounts();
    await api.getStatus();
    await expect(api.probe()).resolves.toEqual({ channel: IPC_CHANNELS.probe });
    expect(invoked).toEqual([
      { channel: IPC_CHANNELS.listTerminals, args: [] },
      { channel: IPC_CHANNELS.listCentrals, args: [] },
      { channel: IPC_CHANNELS.getDropCounts, args: [] },
      { channel: IPC_CHANNELS.getStatus, args: [] },
      { channel: IPC_CHANNELS.probe, args: [] },
    ]);
    invoked.length = 0;
    await api.diagnose('10.0.0.5');
    await api.signIn('tech', 'pw');
    await api.push({ ids: ['A'], centralUrl: 'http://10.0.0.1' });
    await api.runLayer('data', { person: 'Ann' });
    await api.confirmLayer('services', 'Ann', 'ok');
    await api.finishAcceptance('Ann', 'North', false);
    await api.recordReport();
    await api.getReport('pdf');
    await api.listenAgain();
    await api.changePassword('old', 'new');
    await api.setLanguage('zh-CN', true);
    expect(invoked).toEqual([
      { channel: IPC_CHANNELS.diagnose, args: ['10.0.0.5'] },
      { channel: IPC_CHANNELS.signIn, args: ['tech', 'pw'] },
      { channel: IPC_CHANNELS.push, args: [{ ids: ['A'], centralUrl: 'http://10.0.0.1' }] },
      { channel: IPC_CHANNELS.runLayer, args: ['data', { person: 'Ann' }] },
      { channel: IPC_CHANNELS.confirmLayer, args: ['services', 'Ann', 'ok'] },
      { channel: IPC_CHANNELS.finishAcceptance, args: ['Ann', 'North', false] },
      { channel: IPC_CHANNELS.recordReport, args: [] },
      { channel: IPC_CHANNELS.getReport, args: ['pdf'] },
      { channel: IPC_CHANNELS.listenAgain, args: [] },
      { channel: IPC_CHANNELS.changePassword, args: ['old', 'new'] },
      { channel: IPC_CHANNELS.setLanguage, args: ['zh-CN', true] },
    ]);
    // Every invoke channel the preload uses has a handler in the main process.
    const handled = new Set<string>(createIpcHandlers(api).map((handler) => handler.channel));
    for (const { channel } of invoked) expect(handled.has(channel)).toBe(true);
  });

  it('forwards terminal lists without the IPC event, and unsubscribes', () => {
    const { exposed, listeners } = runPreload();
    const api = exposed.get('svcConsole') as ConsoleApi;
    const received: unknown[][] = [];
    const unsubscribe = api.onTerminalsChanged((...args) => received.push(args));
    const registered = listeners.get(IPC_CHANNELS.terminalsChanged);
    expect(registered?.size).toBe(1);

    const list = [{ id: 'ENR-0001' }] as TerminalEntry[];
    for (const listener of registered ?? []) listener({ sender: 'secret ipc event' }, list);
    expect(received).toEqual([[list]]);

    unsubscribe();
    expect(listeners.get(IPC_CHANNELS.terminalsChanged)?.size).toBe(0);
  });
});
