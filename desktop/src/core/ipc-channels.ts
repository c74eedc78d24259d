// How a ConsoleApi call crosses from the renderer: the IPC channel (Electron) or the route (the
// browser shell) named after its method, and its arguments. No imports: the renderer's HTTP
// client and the preload's build step read it too. The methods themselves are listed once, in
// ipc.ts (`INVOKE_METHODS`, from the argument rules).

const PREFIX = 'svc-console:';

/** `listTerminals` → `list-terminals`: the browser shell serves it as `/api/call/list-terminals`. */
export function methodRoute(method: string): string {
  return method.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `listTerminals` → `svc-console:list-terminals`. */
export function channelOf(method: string): string {
  return PREFIX + methodRoute(method);
}

/** main → renderer: the terminal list after a change. */
export const TERMINALS_CHANGED_CHANNEL = `${PREFIX}terminals-changed` as const;

/**
 * Electron only: a file the renderer downloads (report, CSV) is written where the technician
 * chooses in the system's save dialog. The browser shell downloads through the browser.
 */
export const SAVE_FILE_CHANNEL = `${PREFIX}save-file` as const;

/**
 * A call's arguments as they are sent: an optional one left out stays out (an `undefined` at the
 * end would reach the browser shell as JSON's `null`, which the argument rules refuse).
 */
export function sentArguments(args: readonly unknown[]): unknown[] {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end -= 1;
  return args.slice(0, end);
}

/** The name under which the built preload finds its channels (see `withChannels`). */
export const PRELOAD_CHANNELS_NAME = 'SVC_CONSOLE_CHANNELS';

/**
 * The preload as the build writes it (scripts/preload-channels.mjs): the compiled preload with
 * `channels` declared ahead of it. A sandboxed preload can require nothing but `electron`, so the
 * one list cannot be imported when it runs; it is written in when it is built. Idempotent.
 */
export function withChannels(compiledPreload: string, channels: object): string {
  const declaration = `const ${PRELOAD_CHANNELS_NAME} = `;
  const body = compiledPreload
    .split('\n')
    .filter((line) => !line.startsWith(declaration))
    .join('\n');
  if (!body.includes(PRELOAD_CHANNELS_NAME)) {
    throw new Error(`the compiled preload never reads ${PRELOAD_CHANNELS_NAME}`);
  }
  // After the "use strict" prologue, which must stay the file's first statement.
  const prologue = /^(?:"use strict";\r?\n)?/.exec(body)?.[0] ?? '';
  return `${prologue}${declaration}${JSON.stringify(channels)};\n${body.slice(prologue.length)}`;
}
