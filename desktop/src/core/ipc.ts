import { issueMessage } from '@svc/shared';
import { fieldMessage, t } from './i18n.js';
import { z } from 'zod';
import { LANGUAGES } from './language.js';
import { centralUrl, loginRequest, pushRequest } from '@svc/shared';
import type { ConsoleApi } from './api.js';
import { LAYER_IDS } from './acceptance/layers.js';
import { layerInput } from './acceptance/runner.js';

/** The second factor, by the central service's own rule (`loginRequest.code`). */
const twoFactorCode = loginRequest.shape.code.unwrap();

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
  /** main → renderer: the terminal list after a change. */
  terminalsChanged: 'svc-console:terminals-changed',
} as const;

/**
 * Electron only: a file the renderer downloads (report, CSV) is written where the technician
 * chooses in the system's save dialog. The browser shell downloads through the browser.
 */
export const SAVE_FILE_CHANNEL = 'svc-console:save-file';
export interface DesktopFiles {
  /** True once written; false when the technician cancelled the dialog. */
  saveFile(filename: string, base64: string): Promise<boolean>;
}
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
      if (!parsed.success)
        return Promise.reject(
          new IpcArgumentError(channel, parsed.error.issues, spec.refused?.(args) ?? null),
        );
      return spec.call(api, parsed.data);
    },
  };
}

export function createIpcHandlers(api: ConsoleApi): IpcHandler[] {
  return (Object.keys(methods) as InvokeMethod[]).map((method) => handler(api, method));
}
