import {
  terminalConfig,
  type ServiceWarning,
  type TerminalConfig,
  type TerminalConfigUpdate,
} from '@svc/shared';
import { AnswerTooLarge, readCapped } from '../platform/http/peer-answer.js';

/** HTTP to a terminal's management API (PROTOCOL §2); tests may pass their own. */
export interface TerminalClient {
  /** `key`: the terminal's management key, where it has one (PROTOCOL §2). */
  push(base: string, body: TerminalConfigUpdate, key?: string): Promise<TerminalConfig>;
  read(base: string, key?: string): Promise<TerminalConfig>;
}

/** A failure described for the person at the console, e.g. "connection refused at 10.1.2.3:8182". */
/** Why a terminal call failed: English words, and the code and values a client words it from. */
export class TerminalError extends Error {
  readonly detail: ServiceWarning;
  constructor(message: string, code: string, params: ServiceWarning['params']) {
    super(message);
    this.detail = { code, params, message };
  }
}

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed without an answer',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
};

function describe(err: unknown, where: string, timeoutMs: number): TerminalError {
  if (err instanceof TerminalError) return err;
  if (err instanceof AnswerTooLarge) {
    return new TerminalError(
      `the terminal at ${where} answered more than ${err.limit / 1024} KiB (${err.reason}); nothing was read`,
      'terminal_answer_too_large',
      { where, kib: err.limit / 1024 },
    );
  }
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new TerminalError(
      `no answer from ${where} within ${timeoutMs / 1000} s`,
      'terminal_no_answer',
      { where, seconds: timeoutMs / 1000 },
    );
  }
  const code = e.cause?.code;
  // `cause`: the network error code (ECONNREFUSED, …), or `other`.
  return new TerminalError(
    `${(code && CODES[code]) ?? 'could not connect'} at ${where}`,
    'terminal_unreachable',
    { where, cause: code && CODES[code] ? code : 'other' },
  );
}

export function createTerminalClient(timeoutMs = 5_000): TerminalClient {
  async function call(
    base: string,
    init: RequestInit & { headers?: Record<string, string> },
    key: string | undefined,
  ): Promise<TerminalConfig> {
    const where = new URL(base).host;
    let res: Response;
    try {
      res = await fetch(`${base}/api/config`, {
        ...init,
        headers: { ...init.headers, ...(key !== undefined && { authorization: `Bearer ${key}` }) },
        // The config carries the token: it goes to the address the terminal was heard from,
        // never wherever that address points.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw describe(err, where, timeoutMs);
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      throw new TerminalError(
        `the terminal at ${where} answered with a redirect (HTTP ${res.status}); redirects are refused`,
        'terminal_redirect',
        { where, status: res.status },
      );
    }
    let text: string;
    try {
      text = await readCapped(res);
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw describe(err, where, timeoutMs);
      text = '';
    }
    if (res.status === 401) {
      throw key === undefined
        ? new TerminalError(
            `the terminal at ${where} refused the request (401): it has a management key; enter it and push again`,
            'terminal_key_needed',
            { where },
          )
        : new TerminalError(
            `the terminal at ${where} refused its management key (401): check the key and push again`,
            'terminal_key_refused',
            { where },
          );
    }
    if (res.status !== 200) {
      throw new TerminalError(
        `the terminal at ${where} answered HTTP ${res.status}`,
        'terminal_http_status',
        { where, status: res.status },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new TerminalError(
        `the terminal at ${where} answered something that is not JSON`,
        'terminal_not_json',
        { where },
      );
    }
    const parsed = terminalConfig.safeParse(json);
    if (!parsed.success) {
      throw new TerminalError(
        `the terminal at ${where} answered a config this service does not understand`,
        'terminal_config_unknown',
        { where },
      );
    }
    return parsed.data;
  }
  return {
    push: (base, body, key) =>
      call(
        base,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
        key,
      ),
    read: (base, key) => call(base, { method: 'GET' }, key),
  };
}
