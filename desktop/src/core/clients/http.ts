import { t } from '../i18n.js';

/** A failure described for the technician, e.g. "connection refused at 10.1.2.3:8182". */
export class ReachError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    /** The PROTOCOL §0 error code of the answer, when there was one. */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** Socket error codes the console has words for (`errors.reach.<code>` in the catalogs). */
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** An answer that came, but not in the shape an svc service gives (another web server). */
export const UNEXPECTED_ANSWER = 'unexpected_answer';

/** Turns a fetch failure into words: the code of the cause, or the timeout. */
export function describeFetchError(err: unknown, where: string, timeoutMs: number): ReachError {
  if (err instanceof ReachError) return err;
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new ReachError(t('errors.reach.timeout', { where, seconds: timeoutMs / 1000 }));
  }
  const code = e.cause?.code;
  const what = code && CODES.has(code) ? t(`errors.reach.${code}`) : t('errors.reach.other');
  return new ReachError(t('errors.reach.at', { what, where }));
}

/** The `message` of a PROTOCOL §0 error body, or null. */
export function errorMessage(text: string): string | null {
  return errorOf(text)?.message ?? null;
}

/** The `code` and `message` of a PROTOCOL §0 error body, or null. */
export function errorOf(text: string): { code: string | null; message: string } | null {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    const m = body.error?.message;
    const c = body.error?.code;
    return typeof m === 'string' ? { code: typeof c === 'string' ? c : null, message: m } : null;
  } catch {
    return null;
  }
}
