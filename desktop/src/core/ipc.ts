import { z } from 'zod';
import type { ConsoleApi } from './api.js';

/**
 * IPC channel names. The preload (a standalone CommonJS file: a sandboxed preload can require
 * nothing but `electron`) repeats them, typed against this object so they cannot drift.
 */
export const IPC_CHANNELS = {
  listTerminals: 'svc-console:list-terminals',
  listCentrals: 'svc-console:list-centrals',
  getDropCounts: 'svc-console:get-drop-counts',
  getStatus: 'svc-console:get-status',
  probe: 'svc-console:probe',
  /** main → renderer: the terminal list after a change. */
  terminalsChanged: 'svc-console:terminals-changed',
} as const;

/** The request/response methods of ConsoleApi (everything but subscriptions). */
export type InvokeMethod = Exclude<keyof ConsoleApi, 'onTerminalsChanged'>;

const noArguments = z.tuple([]);

type MethodSpec<M extends InvokeMethod> = {
  /** What the method accepts from the renderer; anything else is refused before the core sees it. */
  args: z.ZodType<Parameters<ConsoleApi[M]>>;
  call(api: ConsoleApi, args: Parameters<ConsoleApi[M]>): ReturnType<ConsoleApi[M]>;
};

const methods: { [M in InvokeMethod]: MethodSpec<M> } = {
  listTerminals: { args: noArguments, call: (api) => api.listTerminals() },
  listCentrals: { args: noArguments, call: (api) => api.listCentrals() },
  getDropCounts: { args: noArguments, call: (api) => api.getDropCounts() },
  getStatus: { args: noArguments, call: (api) => api.getStatus() },
  probe: { args: noArguments, call: (api) => api.probe() },
};

export class IpcArgumentError extends Error {
  constructor(channel: string) {
    super(`invalid arguments for ${channel}`);
    this.name = 'IpcArgumentError';
  }
}

export interface IpcHandler {
  channel: (typeof IPC_CHANNELS)[InvokeMethod];
  /** Validates the renderer's arguments, then calls the core. */
  handle: (args: readonly unknown[]) => Promise<unknown>;
}

function handler<M extends InvokeMethod>(api: ConsoleApi, method: M): IpcHandler {
  const spec: MethodSpec<M> = methods[method];
  const channel = IPC_CHANNELS[method];
  return {
    channel,
    handle: (args) => {
      const parsed = spec.args.safeParse(args);
      if (!parsed.success) return Promise.reject(new IpcArgumentError(channel));
      return spec.call(api, parsed.data);
    },
  };
}

export function createIpcHandlers(api: ConsoleApi): IpcHandler[] {
  return (Object.keys(methods) as InvokeMethod[]).map((method) => handler(api, method));
}
