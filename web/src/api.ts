/**
 * The one place the site talks to svc_server (PROTOCOL §0, §5, §6).
 *
 * - Same-origin requests only (`/api/...`, proxied by nginx in production and by Vite in dev).
 * - Every state-changing request carries the CSRF token from `GET /api/auth/csrf` in the
 *   `X-CSRF-Token` header; the token is fetched lazily, dropped when the session changes, and
 *   fetched again once if the server answers 403 `csrf`.
 * - Every answer is parsed with the shared zod schemas; nothing untyped leaves this module.
 */
import {
  CSRF_HEADER,
  ErrorCode,
  csrfResponse,
  errorBody,
  heartbeatResponse,
  userResponse,
  type HeartbeatResponse,
  type LanguageRequest,
  type SessionUser,
} from '@svc/shared';
import { currentLocale } from './i18n';
import { translateError, translateMessage } from './i18n/errors';

interface Message {
  code: string;
  params?: Record<string, string | number>;
}

/** Anything with a zod-like `safeParse`; keeps zod itself out of this workspace's imports. */
export interface Schema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A failed request, with what a person needs to know about it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** HTTP status; 0 when the service could not be reached at all. */
    readonly status: number,
    /** The server's `error.code`, or `network` / `bad_response` / `http_<status>`. */
    readonly code: string,
    message: string,
    /** Seconds from `Retry-After` (429, 503), when the server sent one. */
    readonly retryAfterSeconds: number | null = null,
    readonly fields: Readonly<Record<string, string>> = {},
    /** The values the server's message names (`error.params`). */
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
  }
}

/**
 * Each field's message in the site's language: by its code when the server sent one, else the
 * whole answer's own translation (a duplicate name, say); English keeps the server's words.
 */
function translateFields(
  code: string,
  params: Readonly<Record<string, string | number>>,
  fields: Readonly<Record<string, string>>,
  fieldCodes: Readonly<Record<string, Message>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(fields)) {
    const coded = fieldCodes[path];
    out[path] =
      coded !== undefined
        ? translateMessage(coded.code, coded.params, text)
        : translateError(code, params, text);
  }
  return out;
}

/** Told about answers that mean the signed-in state changed under us. */
export type SessionProblem = 'unauthorized' | 'password_change_required';
type SessionListener = (problem: SessionProblem) => void;

const sessionListeners = new Set<SessionListener>();

/** Subscribes to 401s and 403 `password_change_required`; returns the unsubscribe function. */
export function onSessionProblem(listener: SessionListener): () => void {
  sessionListeners.add(listener);
  return () => sessionListeners.delete(listener);
}

let csrfToken: string | null = null;

function isStateChanging(method: Method): boolean {
  return method !== 'GET';
}

/** `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** A status without a body of ours (a proxy's page, say), in the site's language. */
function fallbackMessage(status: number): string {
  const code =
    status === 401
      ? 'unauthorized'
      : status === 403
        ? 'forbidden'
        : status === 404
          ? 'not_found'
          : status === 413
            ? 'payload_too_large'
            : status === 429
              ? 'rate_limited'
              : status === 502 || status === 504
                ? 'network'
                : status === 503
                  ? 'database_unavailable'
                  : 'unknown';
  return translateError(code, { retryAfterS: 0 }, `Something went wrong (HTTP ${status}).`);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
  const parsed = errorBody.safeParse(await readJson(response));
  if (parsed.success) {
    const { code, message, fields, params = {}, fieldCodes = {} } = parsed.data.error;
    const english = message || fallbackMessage(response.status);
    // In English the server's own words are shown (they are the catalog's, or more specific).
    const inEnglish = currentLocale() === 'en';
    return new ApiError(
      response.status,
      code,
      inEnglish ? english : translateError(code, params, english),
      retryAfter,
      inEnglish ? (fields ?? {}) : translateFields(code, params, fields ?? {}, fieldCodes),
      params,
    );
  }
  return new ApiError(
    response.status,
    `http_${response.status}`,
    fallbackMessage(response.status),
    retryAfter,
  );
}

function networkError(): ApiError {
  return new ApiError(
    0,
    'network',
    translateError(
      'network',
      {},
      'Cannot reach the service. Check the network connection and try again.',
    ),
  );
}

async function send(
  method: Method,
  path: string,
  body: unknown,
  signal: AbortSignal | undefined,
  ifMatch: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (ifMatch !== undefined) headers['If-Match'] = ifMatch;
  // A Blob (a photo from a file input) goes as it is, under its own media type; FormData
  // (files to import) too, and the browser writes its multipart type with the boundary.
  const raw = body instanceof Blob || body instanceof FormData;
  if (body !== undefined && !(body instanceof FormData)) {
    headers['Content-Type'] = body instanceof Blob ? body.type : 'application/json';
  }
  if (isStateChanging(method)) headers[CSRF_HEADER] = await getCsrfToken(signal);
  return reach(path, {
    method,
    headers,
    body: raw ? body : body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
}

/** `fetch` of our own origin, never cached; a service out of reach is `network`. */
async function reach(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { credentials: 'same-origin', cache: 'no-store', ...init });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw networkError();
  }
}

/** An answer that does not parse with its schema. */
function badResponse(status: number): ApiError {
  return new ApiError(
    status,
    'bad_response',
    translateError('bad_response', {}, 'The service sent an unexpected answer.'),
  );
}

export interface RequestOptions<T> {
  /** JSON, a Blob sent raw with its own type, or FormData (multipart). */
  body?: unknown;
  /** Schema of a successful answer; leave out for 204 (the result is then `undefined`). */
  schema?: Schema<T>;
  signal?: AbortSignal;
  /** Do not report 401 as a session problem (login, me: a 401 there is an answer, not news). */
  quietUnauthorized?: boolean;
  /**
   * The record's `etag` as last read: sent as `If-Match`, so a save over someone else's change
   * is refused (412 `edit_conflict`) instead of silently overwriting it.
   */
  ifMatch?: string;
}

/** One request to svc_server; throws {@link ApiError} for anything but a parsed success. */
export async function request<T = undefined>(
  method: Method,
  path: string,
  options: RequestOptions<T> = {},
): Promise<T> {
  const { body, schema, signal, quietUnauthorized = false, ifMatch } = options;
  let response = await send(method, path, body, signal, ifMatch);
  let error = response.ok ? null : await toApiError(response);

  if (error?.status === 403 && error.code === ErrorCode.csrf && isStateChanging(method)) {
    // The token may be stale (a new session binds a new one): fetch a fresh one, retry once.
    csrfToken = null;
    response = await send(method, path, body, signal, ifMatch);
    error = response.ok ? null : await toApiError(response);
  }

  if (error !== null) {
    if (error.status === 401 && !quietUnauthorized) notify('unauthorized');
    if (error.status === 403 && error.code === ErrorCode.passwordChangeRequired) {
      notify('password_change_required');
    }
    throw error;
  }

  if (schema === undefined) return undefined as T;
  const parsed = schema.safeParse(await readJson(response));
  if (!parsed.success) throw badResponse(response.status);
  return parsed.data;
}

/** `path` with the query set from `params` (empty values left out). */
export function withQuery(
  path: string,
  params: Record<string, string | number | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * Every item of a list endpoint, a page of 200 (the API's largest) at a time. Bounded: an
 * organization with more than 10,000 spaces or devices gets the first 10,000.
 */
export async function listAll<T>(
  path: string,
  schema: Schema<{ items: T[]; total: number }>,
  signal?: AbortSignal,
): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const answer = await request('GET', withQuery(path, { page, pageSize: 200 }), {
      schema,
      signal,
    });
    all.push(...answer.items);
    if (answer.items.length === 0 || all.length >= answer.total) break;
  }
  return all;
}

function notify(problem: SessionProblem): void {
  for (const listener of sessionListeners) listener(problem);
}

/** `GET /api/auth/csrf`, cached until the session changes. */
export async function getCsrfToken(signal?: AbortSignal): Promise<string> {
  if (csrfToken !== null) return csrfToken;
  const response = await reach('/api/auth/csrf', {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (!response.ok) throw await toApiError(response);
  const parsed = csrfResponse.safeParse(await readJson(response));
  if (!parsed.success) throw badResponse(response.status);
  csrfToken = parsed.data.token;
  return csrfToken;
}

/** Forget the CSRF token (after sign-in and sign-out the server may bind a new one). */
export function resetCsrfToken(): void {
  csrfToken = null;
}

// ---- Sessions (PROTOCOL §6) ----

export async function login(
  username: string,
  password: string,
  code?: string,
): Promise<SessionUser> {
  const { user } = await request('POST', '/api/auth/login', {
    body: { username, password, ...(code !== undefined && code !== '' && { code }) },
    schema: userResponse,
    quietUnauthorized: true,
  });
  resetCsrfToken();
  return user;
}

export async function logout(): Promise<void> {
  try {
    await request('POST', '/api/auth/logout', { quietUnauthorized: true });
  } finally {
    resetCsrfToken();
  }
}

/** Stores the administrator's language (null: the browser's); answers the updated user. */
export async function setLanguage(language: LanguageRequest['language']): Promise<SessionUser> {
  const { user } = await request('PUT', '/api/auth/me/language', {
    body: { language } satisfies LanguageRequest,
    schema: userResponse,
  });
  return user;
}

/** The signed-in user, or `null` when there is no session. */
export async function me(signal?: AbortSignal): Promise<SessionUser | null> {
  try {
    const { user } = await request('GET', '/api/auth/me', {
      schema: userResponse,
      signal,
      quietUnauthorized: true,
    });
    return user;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** `PUT /api/auth/organization` (superadmin): the organization to work in; null for all. */
export async function chooseOrganization(organizationId: string | null): Promise<SessionUser> {
  const { user } = await request('PUT', '/api/auth/organization', {
    body: { organizationId },
    schema: userResponse,
  });
  return user;
}

export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await request('POST', '/api/auth/password', {
    body: { currentPassword, newPassword },
    // A 401 here is usually the wrong current password; the page decides what it means.
    quietUnauthorized: true,
  });
}

// ---- Service status (PROTOCOL §5) ----

/**
 * `GET /api/heartbeat`. A 503 with a heartbeat body (`state: 0`, database down) is an answer,
 * not a failure, so it is returned like a 200.
 */
export async function heartbeat(signal?: AbortSignal): Promise<HeartbeatResponse> {
  const response = await reach('/api/heartbeat', {
    headers: { Accept: 'application/json' },
    signal,
  });
  if (response.ok || response.status === 503) {
    const copy = response.clone();
    const parsed = heartbeatResponse.safeParse(await readJson(response));
    if (parsed.success) return parsed.data;
    if (response.ok) throw badResponse(response.status);
    throw await toApiError(copy);
  }
  throw await toApiError(response);
}
