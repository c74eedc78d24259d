import type { ServiceWarning } from '@svc/shared';
import { t } from '../i18n.js';

/** What a call met, as values: the technician's words are made from them, in either language. */
export interface ReachFacts {
  /** No answer: the socket error code (`errors.reach.<code>`), `timeout`, or `other`. */
  cause?: string;
  /** host:port called. */
  where?: string;
  /** The time budget that ran out (`cause: timeout`), in seconds. */
  seconds?: number;
  /** An answer came after this many ms (whatever it was). */
  elapsedMs?: number;
  /** An answer that is not what an svc service gives: a status, not JSON, or another shape. */
  answer?: 'status' | 'not_json' | 'shape' | 'summary';
  /** The PROTOCOL §0 `params` of the answer's error, when it had them. */
  params?: Record<string, string | number>;
  /** The failure as a code and values (the central service's `errorDetail` codes), to word it. */
  detail?: ServiceWarning;
}

/** A failure described for the technician, e.g. "connection refused at 10.1.2.3:8182". */
export class ReachError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    /** The PROTOCOL §0 error code of the answer, when there was one. */
    readonly code: string | null = null,
    readonly facts: ReachFacts = {},
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

/**
 * An svc central service that answered its heartbeat's summary only: it shows its details to
 * its trusted networks (TRUSTED_NETWORKS) and to signed-in administrators.
 */
export const DETAILS_WITHHELD = 'details_withheld';

/** Turns a fetch failure into words: the code of the cause, or the timeout. */
export function describeFetchError(err: unknown, where: string, timeoutMs: number): ReachError {
  if (err instanceof ReachError) return err;
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    const seconds = timeoutMs / 1000;
    return new ReachError(t('errors.reach.timeout', { where, seconds }), null, null, {
      cause: 'timeout',
      where,
      seconds,
    });
  }
  const code = e.cause?.code;
  const cause = code && CODES.has(code) ? code : 'other';
  return new ReachError(
    t('errors.reach.at', { what: t(`errors.reach.${cause}`), where }),
    null,
    null,
    {
      cause,
      where,
    },
  );
}

/** The `message` of a PROTOCOL §0 error body, or null. */
export function errorMessage(text: string): string | null {
  return errorOf(text)?.message ?? null;
}

/** The `code`, `message` and `params` of a PROTOCOL §0 error body, or null. */
export function errorOf(
  text: string,
): { code: string | null; message: string; params: Record<string, string | number> } | null {
  try {
    const body = JSON.parse(text) as {
      error?: { message?: unknown; code?: unknown; params?: unknown };
    };
    const m = body.error?.message;
    const c = body.error?.code;
    const p = body.error?.params;
    const params: Record<string, string | number> = {};
    if (p && typeof p === 'object') {
      for (const [k, v] of Object.entries(p)) {
        if (typeof v === 'string' || typeof v === 'number') params[k] = v;
      }
    }
    return typeof m === 'string'
      ? { code: typeof c === 'string' ? c : null, message: m, params }
      : null;
  } catch {
    return null;
  }
}
