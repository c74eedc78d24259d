import { centralUrl, issueMessage, loginRequest, pushRequest } from '@svc/shared';
import { z } from 'zod';
import { LAYER_IDS } from './acceptance/layers.js';
import { layerInput } from './acceptance/runner.js';
import type { ConsoleApi } from './api.js';
import { fieldMessage, t } from './i18n.js';
import { channelOf, SAVE_FILE_CHANNEL, TERMINALS_CHANGED_CHANNEL } from './ipc-channels.js';
import { LANGUAGES } from './language.js';

export { SAVE_FILE_CHANNEL, TERMINALS_CHANGED_CHANNEL };

/** The second factor, by the central service's own rule (`loginRequest.code`). */
const twoFactorCode = loginRequest.shape.code.unwrap();

/** Electron only: the save dialog behind a download (`SAVE_FILE_CHANNEL`). */
export interface DesktopFiles {
  /** True once written; false when the technician cancelled the dialog. */
  saveFile(filename: string, base64: string): Promise<boolean>;
}
/** What the save dialog takes: a plain file name and the file's bytes. */
export const saveFileArgs = z.tuple([
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^/\\\p{Cc}]+$/u, 'must be a plain file name'),
  z.base64().max(100_000_000),
]);

/** The request/response methods of ConsoleApi (everything but subscriptions). */
export type InvokeMethod = Exclude<keyof ConsoleApi, 'onTerminalsChanged'>;

const noArguments = z.tuple([]);
const shortText = z.string().trim().max(200);
const layerId = z.enum(LAYER_IDS);

type MethodSpec<M extends InvokeMethod> = {
  /** What the method accepts from the renderer; anything else is refused before the core sees it. */
  args: z.ZodType<Parameters<ConsoleApi[M]>>;
  call(api: ConsoleApi, args: Parameters<ConsoleApi[M]>): ReturnType<ConsoleApi[M]>;
  /** The console's own sentence for refused arguments, when the field rule says too little. */
  refused?: (args: readonly unknown[]) => string | null;
};

/**
 * The one list of request methods, with the arguments each accepts. The IPC channels, the
 * preload (written in at build time) and the browser shell's routes all come from it, so a new
 * method is its ConsoleApi signature, its implementation, and its line here.
 */
const methods: { [M in InvokeMethod]: MethodSpec<M> } = {
  listTerminals: { args: noArguments, call: (api) => api.listTerminals() },
  listCentrals: { args: noArguments, call: (api) => api.listCentrals() },
  getDropCounts: { args: noArguments, call: (api) => api.getDropCounts() },
  getStatus: { args: noArguments, call: (api) => api.getStatus() },
  probe: { args: noArguments, call: (api) => api.probe() },
  listenAgain: { args: noArguments, call: (api) => api.listenAgain() },
  terminalsCsv: { args: noArguments, call: (api) => api.terminalsCsv() },
  diagnose: {
    args: z.tuple([z.ipv4().nullable()]),
    call: (api, [a]) => api.diagnose(a),
    // "127.0.0.1:8645", "http://…": the field takes a bare address; say so, and where ports come from.
    refused: ([value]) =>
      typeof value === 'string'
        ? t('diagnostics.page.badAddress', { value: value.slice(0, 100) })
        : null,
  },
  getCentral: { args: noArguments, call: (api) => api.getCentral() },
  setCentral: { args: z.tuple([centralUrl]), call: (api, [url]) => api.setCentral(url) },
  signIn: {
    args: z.tuple([
      z.string().min(1).max(64),
      z.string().min(1).max(256),
      twoFactorCode.optional(),
    ]),
    call: (api, [u, p, code]) => api.signIn(u, p, code),
  },
  signOut: { args: noArguments, call: (api) => api.signOut() },
  changePassword: {
    args: z.tuple([z.string().min(1).max(256), z.string().min(1).max(256)]),
    call: (api, [current, next]) => api.changePassword(current, next),
  },
  push: { args: z.tuple([pushRequest]), call: (api, [r]) => api.push(r) },
  pushProgress: { args: noArguments, call: (api) => api.pushProgress() },
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
    args: z.tuple([shortText.min(1), shortText.min(1), z.boolean()]),
    call: (api, [t, s, withNotRun]) => api.finishAcceptance(t, s, withNotRun),
  },
  recordReport: { args: noArguments, call: (api) => api.recordReport() },
  getReport: {
    args: z.tuple([z.enum(['html', 'json', 'pdf']), z.enum(LANGUAGES).optional()]),
    call: (api, [f, language]) => api.getReport(f, language),
  },
  getSettings: { args: noArguments, call: (api) => api.getSettings() },
  setLanguage: {
    args: z.tuple([z.enum(LANGUAGES), z.boolean()]),
    call: (api, [language, keep]) => api.setLanguage(language, keep),
  },
};

/** Every request method of ConsoleApi. */
export const INVOKE_METHODS = Object.keys(methods) as InvokeMethod[];

/** Each request method's IPC channel (`listTerminals` → `svc-console:list-terminals`). */
export const IPC_CHANNELS = Object.fromEntries(
  INVOKE_METHODS.map((method) => [method, channelOf(method)]),
) as Readonly<Record<InvokeMethod, string>>;

/** What the built preload is given (src/main/preload.cts reads it as SVC_CONSOLE_CHANNELS). */
export interface PreloadChannels {
  invoke: Readonly<Record<InvokeMethod, string>>;
  terminalsChanged: typeof TERMINALS_CHANGED_CHANNEL;
  saveFile: typeof SAVE_FILE_CHANNEL;
}
export const PRELOAD_CHANNELS: PreloadChannels = {
  invoke: IPC_CHANNELS,
  terminalsChanged: TERMINALS_CHANGED_CHANNEL,
  saveFile: SAVE_FILE_CHANNEL,
};

/** Arguments the console refused, said as what was wrong (never the channel's name). */
export class IpcArgumentError extends Error {
  constructor(
    readonly channel: string,
    issues: readonly z.core.$ZodIssue[] = [],
    reason: string | null = null,
  ) {
    const first = issues[0];
    const message = first && issueMessage(first);
    super(
      reason !== null
        ? t('errors.refusedArgs', { reason })
        : message
          ? t('errors.refusedArgs', { reason: fieldMessage(message.code, message.params) })
          : t('errors.refusedArgsShape'),
    );
    this.name = 'IpcArgumentError';
  }
}

export interface IpcHandler {
  method: InvokeMethod;
  channel: string;
  /** Validates the renderer's arguments, then calls the core. */
  handle: (args: readonly unknown[]) => Promise<unknown>;
}

function handler<M extends InvokeMethod>(api: ConsoleApi, method: M): IpcHandler {
  const spec: MethodSpec<M> = methods[method];
  const channel = IPC_CHANNELS[method];
  return {
    method,
    channel,
    handle: (args) => {
      const parsed = spec.args.safeParse(args);
      if (!parsed.success)
        return Promise.reject(
          new IpcArgumentError(channel, parsed.error.issues, spec.refused?.(args) ?? null),
        );
      return spec.call(api, parsed.data);
    },
  };
}

export function createIpcHandlers(api: ConsoleApi): IpcHandler[] {
  return INVOKE_METHODS.map((method) => handler(api, method));
}
