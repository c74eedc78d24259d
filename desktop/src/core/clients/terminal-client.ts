import { t } from '../i18n.js';
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
      throw describeFetchError(err, where, timeoutMs);
    }
    const text = await res.text().catch(() => '');
    if (res.status === 401) {
      throw new ReachError(
        key
          ? t('errors.terminal.keyRefused', { where })
          : t('errors.terminal.keyNeeded', { where }),
        401,
      );
    }
    if (res.status !== 200) {
      throw new ReachError(t('errors.terminal.status', { where, status: res.status }), res.status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReachError(t('errors.terminal.notJson', { where }));
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ReachError(t('errors.terminal.shape', { where }));
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
