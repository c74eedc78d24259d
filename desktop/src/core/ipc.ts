import { z } from 'zod';
import { centralUrl, optionalHttpUrl } from '@svc/shared';
import type { ConsoleApi } from './api.js';
import { LAYER_IDS } from './acceptance/layers.js';
import { layerInput } from './acceptance/runner.js';

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
  terminalsCsv: 'svc-console:terminals-csv',
  diagnose: 'svc-console:diagnose',
  getCentral: 'svc-console:get-central',
  setCentral: 'svc-console:set-central',
  signIn: 'svc-console:sign-in',
  signOut: 'svc-console:sign-out',
  push: 'svc-console:push',
  listPushes: 'svc-console:list-pushes',
  getAcceptance: 'svc-console:get-acceptance',
  runLayer: 'svc-console:run-layer',
  confirmLayer: 'svc-console:confirm-layer',
  finishAcceptance: 'svc-console:finish-acceptance',
  getReport: 'svc-console:get-report',
  /** main → renderer: the terminal list after a change. */
  terminalsChanged: 'svc-console:terminals-changed',
} as const;

/** The request/response methods of ConsoleApi (everything but subscriptions). */
export type InvokeMethod = Exclude<keyof ConsoleApi, 'onTerminalsChanged'>;

const noArguments = z.tuple([]);
const shortText = z.string().trim().max(200);
const layerId = z.enum(LAYER_IDS);
/** What the renderer may ask to push; the same rules as the central service's configure. */
export const pushRequest = z
  .object({
    ids: z.array(z.string().min(1).max(64)).min(1).max(1000),
    centralUrl,
    panelUrl: optionalHttpUrl.optional(),
    key: z.string().max(256).optional(),
  })
  .strict();

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
  terminalsCsv: { args: noArguments, call: (api) => api.terminalsCsv() },
  diagnose: { args: z.tuple([z.ipv4().nullable()]), call: (api, [a]) => api.diagnose(a) },
  getCentral: { args: noArguments, call: (api) => api.getCentral() },
  setCentral: { args: z.tuple([centralUrl]), call: (api, [url]) => api.setCentral(url) },
  signIn: {
    args: z.tuple([z.string().min(1).max(64), z.string().min(1).max(256)]),
    call: (api, [u, p]) => api.signIn(u, p),
  },
  signOut: { args: noArguments, call: (api) => api.signOut() },
  push: { args: z.tuple([pushRequest]), call: (api, [r]) => api.push(r) },
  listPushes: { args: noArguments, call: (api) => api.listPushes() },
  getAcceptance: { args: noArguments, call: (api) => api.getAcceptance() },
  runLayer: {
    args: z.tuple([layerId, layerInput]),
    call: (api, [id, input]) => api.runLayer(id, input),
  },
  confirmLayer: {
    args: z.tuple([layerId, shortText.min(1), z.string().max(1000)]),
    call: (api, [id, who, note]) => api.confirmLayer(id, who, note),
  },
  finishAcceptance: {
    args: z.tuple([shortText.min(1), shortText.min(1)]),
    call: (api, [t, s]) => api.finishAcceptance(t, s),
  },
  getReport: {
    args: z.tuple([z.enum(['html', 'json', 'pdf'])]),
    call: (api, [f]) => api.getReport(f),
  },
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
