/** A failure described for the technician, e.g. "connection refused at 10.1.2.3:8182". */
export class ReachError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
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

/** Turns a fetch failure into words: the code of the cause, or the timeout. */
export function describeFetchError(err: unknown, where: string, timeoutMs: number): ReachError {
  if (err instanceof ReachError) return err;
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new ReachError(`no answer from ${where} within ${timeoutMs / 1000} s`);
  }
  const code = e.cause?.code;
  return new ReachError(`${(code && CODES[code]) ?? 'could not connect'} at ${where}`);
}

/** The `message` of a PROTOCOL §0 error body, or null. */
export function errorMessage(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    const m = body.error?.message;
    return typeof m === 'string' ? m : null;
  } catch {
    return null;
  }
}
