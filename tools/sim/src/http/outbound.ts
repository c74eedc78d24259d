import type { FetchLike } from '../deps.js';

/** How a call to the central service went. `status` is null when no answer arrived. */
export interface CallResult {
  time: string;
  url: string;
  status: number | null;
  body: unknown;
  error?: string;
}

export const OUTBOUND_TIMEOUT_MS = 5_000;

/** `path` appended to a base URL of the form http://host[:port] (a trailing slash is tolerated). */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

// Duck-typed: errors from fetch may come from another realm (a test VM), where instanceof fails.
function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message, cause } = error as ErrorLike;
  if (typeof cause === 'object' && cause !== null) {
    const inner = cause as ErrorLike;
    const text = typeof inner.message === 'string' ? inner.message : 'request failed';
    return typeof inner.code === 'string' && !text.includes(inner.code)
      ? `${inner.code}: ${text}`
      : text;
  }
  return typeof message === 'string' ? message : 'request failed';
}

/** A node's calls to the central service; `close` aborts whatever is still in flight. */
export interface Outbound {
  post(url: string, body: unknown, bearer: string | undefined): Promise<CallResult>;
  close(): void;
}

export function createOutbound(fetchFn: FetchLike, now: () => Date): Outbound {
  const lifetime = new AbortController();
  return {
    async post(url, body, bearer) {
      const time = now().toISOString();
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      try {
        const response = await fetchFn(url, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.any([lifetime.signal, AbortSignal.timeout(OUTBOUND_TIMEOUT_MS)]),
        });
        const text = await response.text();
        let parsed: unknown = text;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          // Not JSON: keep the text, it is what the other side said.
        }
        return { time, url, status: response.status, body: parsed };
      } catch (error) {
        return { time, url, status: null, body: null, error: describe(error) };
      }
    },
    close: () => lifetime.abort(),
  };
}
