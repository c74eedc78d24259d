import type { ConsoleApi, ConsoleTerminal } from '../../core/api.js';
import { methodRoute, sentArguments } from '../../core/ipc-channels.js';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the browser shell. */
    svcConsole?: ConsoleApi;
  }
}

export class ConsoleCallError extends Error {}

async function call(method: string, args: readonly unknown[]): Promise<unknown> {
  const res = await fetch(`/api/call/${methodRoute(method)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sentArguments(args)),
  });
  const body = (await res.json()) as unknown;
  if (!res.ok) {
    const message = (body as { error?: { message?: string } } | null)?.error?.message;
    throw new ConsoleCallError(message ?? `HTTP ${res.status}`);
  }
  return body;
}

function onTerminalsChanged(listener: (terminals: ConsoleTerminal[]) => void): () => void {
  const source = new EventSource('/api/events');
  source.addEventListener('terminals', (event) => {
    listener(JSON.parse((event as MessageEvent<string>).data) as ConsoleTerminal[]);
  });
  return () => source.close();
}

/**
 * ConsoleApi over the browser shell's HTTP routes and event stream. Every request method is a
 * POST to its route, so none is listed here: the shell answers the methods of ipc.ts's one list
 * and refuses any other name. (Not a thenable: `then` is no method.)
 */
function httpConsoleApi(): ConsoleApi {
  return new Proxy({} as ConsoleApi, {
    get: (_target, name) => {
      if (name === 'onTerminalsChanged') return onTerminalsChanged;
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args: unknown[]) => call(name, args);
    },
  });
}

export const consoleApi: ConsoleApi = window.svcConsole ?? httpConsoleApi();
