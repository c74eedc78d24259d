import type { ConsoleApi, ConsoleTerminal } from '../../core/api.js';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the browser shell. */
    svcConsole?: ConsoleApi;
  }
}

export class ConsoleCallError extends Error {}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

async function call<T>(method: string, args: unknown[]): Promise<T> {
  const res = await fetch(`/api/call/${kebab(method)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as T | { error?: { message?: string } };
  if (!res.ok) {
    const message = (body as { error?: { message?: string } }).error?.message;
    throw new ConsoleCallError(message ?? `HTTP ${res.status}`);
  }
  return body as T;
}

/** ConsoleApi over the browser shell's HTTP routes and event stream. */
function httpConsoleApi(): ConsoleApi {
  const via =
    <M extends keyof ConsoleApi>(method: M) =>
    (...args: unknown[]) =>
      call(method, args);
  return {
    listTerminals: via('listTerminals'),
    listCentrals: via('listCentrals'),
    getDropCounts: via('getDropCounts'),
    getStatus: via('getStatus'),
    probe: via('probe'),
    listenAgain: via('listenAgain'),
    terminalsCsv: via('terminalsCsv'),
    diagnose: via('diagnose'),
    getCentral: via('getCentral'),
    setCentral: via('setCentral'),
    signIn: via('signIn'),
    signOut: via('signOut'),
    changePassword: via('changePassword'),
    push: via('push'),
    pushProgress: via('pushProgress'),
    listPushes: via('listPushes'),
    getAcceptance: via('getAcceptance'),
    runLayer: via('runLayer'),
    confirmLayer: via('confirmLayer'),
    finishAcceptance: via('finishAcceptance'),
    recordReport: via('recordReport'),
    getReport: via('getReport'),
    getSettings: via('getSettings'),
    setLanguage: via('setLanguage'),
    onTerminalsChanged(listener) {
      const source = new EventSource('/api/events');
      source.addEventListener('terminals', (event) => {
        listener(JSON.parse((event as MessageEvent<string>).data) as ConsoleTerminal[]);
      });
      return () => source.close();
    },
  } as ConsoleApi;
}

export const consoleApi: ConsoleApi = window.svcConsole ?? httpConsoleApi();
