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

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as NodeJS.ErrnoException).code;
      return code ? `${code}: ${cause.message}` : cause.message;
    }
    return error.message;
  }
  return String(error);
}

/** POSTs JSON with an optional bearer credential; never throws. */
export async function postJson(
  fetchFn: FetchLike,
  now: () => Date,
  url: string,
  body: unknown,
  bearer: string | undefined,
): Promise<CallResult> {
  const time = now().toISOString();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  try {
    const response = await fetchFn(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(OUTBOUND_TIMEOUT_MS),
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
}
