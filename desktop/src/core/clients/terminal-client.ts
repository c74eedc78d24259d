import { pushFailure } from '../texts.js';
import {
  displayStatus,
  terminalConfig,
  type DisplayStatus,
  type TerminalConfig,
} from '@svc/shared';
import type { z } from 'zod';
import { ReachError, describeFetchError } from './http.js';

export interface ConfigPush {
  centralUrl: string;
  panelUrl?: string;
}

/** HTTP to a terminal's management API (PROTOCOL §2), straight from the laptop. */
export interface TerminalClient {
  read(base: string, key?: string): Promise<TerminalConfig>;
  push(base: string, body: ConfigPush, key?: string): Promise<TerminalConfig>;
  status(base: string): Promise<DisplayStatus>;
}

export function terminalBase(address: string, port: number): string {
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/**
 * A terminal's failure as the central service reports its own (`errorDetail`: the same codes
 * and values, issue 34), so a direct push is worded by the same `pushFailure`.
 */
function failure(
  code: string,
  params: Record<string, string | number>,
  status: number | null,
): ReachError {
  const detail = { code, params, message: '' };
  detail.message = pushFailure(detail, 'en');
  return new ReachError(pushFailure(detail), status, null, { detail });
}

export function createTerminalClient(timeoutMs = 5_000): TerminalClient {
  async function call<T>(
    url: string,
    schema: z.ZodType<T>,
    init: RequestInit,
    key: string | undefined,
  ): Promise<T> {
    const where = new URL(url).host;
    const headers = new Headers(init.headers);
    if (key) headers.set('authorization', `Bearer ${key}`);
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const e = describeFetchError(err, where, timeoutMs);
      throw e.facts.cause === 'timeout'
        ? failure('terminal_no_answer', { where, seconds: timeoutMs / 1000 }, null)
        : failure('terminal_unreachable', { where, cause: e.facts.cause ?? 'other' }, null);
    }
    const text = await res.text().catch(() => '');
    if (res.status === 401) {
      throw failure(key ? 'terminal_key_refused' : 'terminal_key_needed', { where }, 401);
    }
    if (res.status !== 200) {
      throw failure('terminal_http_status', { where, status: res.status }, res.status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw failure('terminal_not_json', { where }, res.status);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw failure('terminal_shape', { where }, res.status);
    }
    return parsed.data;
  }
  return {
    read: (base, key) => call(`${base}/api/config`, terminalConfig, { method: 'GET' }, key),
    push: (base, body, key) =>
      call(
        `${base}/api/config`,
        terminalConfig,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
        key,
      ),
    status: (base) => call(`${base}/api/status`, displayStatus, { method: 'GET' }, undefined),
  };
}
