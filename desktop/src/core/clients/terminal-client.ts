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
          ? `the terminal at ${where} refused the terminal key (401)`
          : `the terminal at ${where} has a management key: enter it to push (401)`,
        401,
      );
    }
    if (res.status !== 200) {
      throw new ReachError(`the terminal at ${where} answered HTTP ${res.status}`, res.status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReachError(`the terminal at ${where} answered something that is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ReachError(`the terminal at ${where} answered a shape the console does not know`);
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
