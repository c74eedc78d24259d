import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import ts from 'typescript';
import type { ConsoleApi, TerminalEntry } from '../core/api.js';
import {
  createIpcHandlers,
  INVOKE_METHODS,
  IPC_CHANNELS,
  PRELOAD_CHANNELS,
  SAVE_FILE_CHANNEL,
  TERMINALS_CHANGED_CHANNEL,
} from '../core/ipc.js';
import { withChannels } from '../core/ipc-channels.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

/** The preload compiled as tsc emits it, before the build writes its channels in. */
function compiledPreload(): string {
  const source = readFileSync(new URL('./preload.cts', import.meta.url), 'utf8');
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: 'preload.cts',
  }).outputText;
}

/**
 * Runs the preload as the build writes it (the channels of ipc.ts's one list ahead of it) the
 * way a sandboxed renderer does: as a CommonJS script whose `require` knows only `electron`,
 * here a recording stand-in for contextBridge and ipcRenderer.
 */
function runPreload(outputText = withChannels(compiledPreload(), PRELOAD_CHANNELS)) {
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

  it('exposes every method of the one list, each reaching its IPC channel with its arguments', async () => {
    const { exposed, invoked } = runPreload();
    const api = exposed.get('svcConsole') as ConsoleApi & { saveFile(...args: unknown[]): unknown };
    expect(Object.keys(api).sort()).toEqual(
      [...INVOKE_METHODS, 'onTerminalsChanged', 'saveFile'].sort(),
    );

    await expect(api.probe()).resolves.toEqual({ channel: IPC_CHANNELS.probe });
    await api.diagnose('10.0.0.5');
    await api.signIn('tech', 'pw');
    await api.push({ ids: ['A'], centralUrl: 'http://10.0.0.1' });
    await api.runLayer('data', { person: 'Ann' });
    await api.confirmLayer('services', 'Ann', 'ok');
    await api.finishAcceptance('Ann', 'North', false);
    await api.getReport('pdf');
    await api.changePassword('old', 'new');
    await api.setLanguage('zh-CN', true);
    await api.saveFile('report.pdf', 'AAAA');
    expect(invoked).toEqual([
      { channel: IPC_CHANNELS.probe, args: [] },
      { channel: IPC_CHANNELS.diagnose, args: ['10.0.0.5'] },
      { channel: IPC_CHANNELS.signIn, args: ['tech', 'pw'] },
      { channel: IPC_CHANNELS.push, args: [{ ids: ['A'], centralUrl: 'http://10.0.0.1' }] },
      { channel: IPC_CHANNELS.runLayer, args: ['data', { person: 'Ann' }] },
      { channel: IPC_CHANNELS.confirmLayer, args: ['services', 'Ann', 'ok'] },
      { channel: IPC_CHANNELS.finishAcceptance, args: ['Ann', 'North', false] },
      { channel: IPC_CHANNELS.getReport, args: ['pdf'] },
      { channel: IPC_CHANNELS.changePassword, args: ['old', 'new'] },
      { channel: IPC_CHANNELS.setLanguage, args: ['zh-CN', true] },
      { channel: SAVE_FILE_CHANNEL, args: ['report.pdf', 'AAAA'] },
    ]);

    // Every request method reaches the channel the main process handles it on.
    invoked.length = 0;
    for (const method of INVOKE_METHODS) await (api[method] as () => Promise<unknown>)();
    const handled = createIpcHandlers(api).map((handler) => handler.channel);
    expect(invoked.map(({ channel }) => channel)).toEqual(handled);
  });

  it('is written in by the build: the channels first (after "use strict"), once however often', () => {
    const compiled = compiledPreload();
    // Without the list the preload cannot run: nothing would be exposed.
    expect(() => runPreload(compiled)).toThrow(/SVC_CONSOLE_CHANNELS is not defined/);
    const built = withChannels(withChannels(compiled, PRELOAD_CHANNELS), PRELOAD_CHANNELS);
    expect(built).toBe(withChannels(compiled, PRELOAD_CHANNELS));
    expect(built.startsWith('"use strict";\nconst SVC_CONSOLE_CHANNELS = {')).toBe(true);
    expect(() => withChannels('"use strict";\nexports.x = 1;\n', PRELOAD_CHANNELS)).toThrow(
      'never reads SVC_CONSOLE_CHANNELS',
    );
  });

  it('forwards terminal lists without the IPC event, and unsubscribes', () => {
    const { exposed, listeners } = runPreload();
    const api = exposed.get('svcConsole') as ConsoleApi;
    const received: unknown[][] = [];
    const unsubscribe = api.onTerminalsChanged((...args) => received.push(args));
    const registered = listeners.get(TERMINALS_CHANGED_CHANNEL);
    expect(registered?.size).toBe(1);

    const list = [{ id: 'ENR-0001' }] as TerminalEntry[];
    for (const listener of registered ?? []) listener({ sender: 'secret ipc event' }, list);
    expect(received).toEqual([[list]]);

    unsubscribe();
    expect(listeners.get(TERMINALS_CHANGED_CHANNEL)?.size).toBe(0);
  });
});
