import {
  CSRF_HEADER,
  acceptanceReportRecord,
  configureResponse,
  csrfResponse,
  discoveryNodeList,
  heartbeatAnswer,
  heartbeatResponse,
  SERVICE_NAME,
  onlineCount,
  panelRoute,
  type PanelRoute,
  personSyncOut,
  syncTaskList,
  userResponse,
  type ConfigureRequest,
  type ConfigureResult,
  type DiscoveryNode,
  type HeartbeatResponse,
  type PersonSyncOut,
  type SessionUser,
  type SyncTaskOut,
} from '@svc/shared';
import { z } from 'zod';
import {
  DETAILS_WITHHELD,
  ReachError,
  UNEXPECTED_ANSWER,
  describeFetchError,
  errorOf,
} from './http.js';
import { t } from '../i18n.js';
import { centralRefusal, knownRefusal, withStatus } from '../texts.js';

const list = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int() });
const named = z.object({ id: z.string(), name: z.string() }).loose();
const personLite = z
  .object({
    id: z.string(),
    name: z.string(),
    idNumber: z.string(),
    photoSha256: z.string().nullable(),
    spaceIds: z.array(z.string()),
  })
  .loose();
export type PersonLite = z.infer<typeof personLite>;
const eventLite = z
  .object({
    id: z.string(),
    eventId: z.string(),
    time: z.string(),
    person: z.object({ id: z.string(), name: z.string() }).nullable(),
    device: z.object({ sn: z.string(), name: z.string() }).loose().nullable(),
    score: z.number(),
  })
  .loose();
export type EventLite = z.infer<typeof eventLite>;
const auditItem = z
  .object({ id: z.string(), at: z.string(), action: z.string(), summary: z.string() })
  .loose();
export type AuditItem = z.infer<typeof auditItem>;
const deviceLite = z
  .object({ id: z.string(), sn: z.string(), name: z.string(), online: z.boolean().optional() })
  .loose();
export type DeviceLite = z.infer<typeof deviceLite>;

export interface Timed<T> {
  value: T;
  /** Round trip seen from the laptop, in ms. */
  elapsedMs: number;
  status: number;
}

/**
 * A photo upload waits as long as the central service may take over it: its face check has up to
 * 30 s and the write up to 15 s (server/src/photos/intake.ts). Giving up sooner reports "no
 * answer" for a photo the central service is still checking, and keeps it anyway.
 */
export const PHOTO_UPLOAD_TIMEOUT_MS = 50_000;

/**
 * A configure waits as long as the central service may take over one terminal: it gives the
 * terminal 5 s to save and 5 s to be read back (server/src/discovery/terminal-client.ts). Giving
 * up sooner calls a slow terminal's push "no answer from the central service" while it goes on.
 */
export const CONFIGURE_TIMEOUT_MS = 15_000;

/**
 * The central service seen from the laptop (PROTOCOL §5–§7). It keeps the session cookie in
 * memory only; the password goes to `/api/auth/login` and nowhere else, and is never kept.
 */
export class CentralClient {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  #cookies = new Map<string, string>();
  #csrf: string | null = null;
  #user: SessionUser | null = null;

  readonly #photoTimeoutMs: number;

  constructor(baseUrl: string, timeoutMs = 8_000, photoTimeoutMs = PHOTO_UPLOAD_TIMEOUT_MS) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ReachError(t('errors.central.notHttp', { url: baseUrl }));
    }
    this.baseUrl = url.origin + url.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
    this.#photoTimeoutMs = photoTimeoutMs;
  }

  get user(): SessionUser | null {
    return this.#user;
  }

  async #raw(method: string, path: string, body?: unknown, type?: string, timeoutMs?: number) {
    const headers = new Headers();
    if (this.#cookies.size > 0) {
      headers.set('cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    if (method !== 'GET' && this.#csrf) headers.set(CSRF_HEADER, this.#csrf);
    let payload: string | Uint8Array<ArrayBuffer> | undefined;
    if (body instanceof Uint8Array) {
      payload = Uint8Array.from(body);
      headers.set('content-type', type ?? 'application/octet-stream');
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers.set('content-type', 'application/json');
    }
    const started = performance.now();
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/api${path}`, {
        method,
        headers,
        ...(payload !== undefined && { body: payload }),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs ?? this.#timeoutMs),
      });
    } catch (err) {
      throw describeFetchError(err, new URL(this.baseUrl).host, timeoutMs ?? this.#timeoutMs);
    }
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return { res, elapsedMs: performance.now() - started };
  }

  async #json<T>(
    schema: z.ZodType<T>,
    method: string,
    path: string,
    body?: unknown,
    okStatuses: number[] = [200, 201],
    timeoutMs?: number,
  ): Promise<Timed<T>> {
    const { res, elapsedMs } = await this.#raw(method, path, body, undefined, timeoutMs);
    const text = await res.text();
    const where = new URL(this.baseUrl).host;
    // An error answer, also on a status that may carry the value (a 503 that is not a heartbeat).
    const error = errorOf(text);
    if (!okStatuses.includes(res.status) || (error !== null && res.status >= 400)) {
      // A refusal the console knows is said in its words; anything else keeps the status.
      const why = error
        ? knownRefusal(error.code)
          ? centralRefusal(error.code, error.message, error.params)
          : withStatus(centralRefusal(error.code, error.message, error.params), res.status)
        : `HTTP ${res.status}`;
      throw new ReachError(why, res.status, error?.code ?? (error ? null : UNEXPECTED_ANSWER), {
        where,
        elapsedMs,
        ...(error ? { params: error.params } : { answer: 'status' }),
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReachError(t('errors.central.notJson'), res.status, UNEXPECTED_ANSWER, {
        where,
        elapsedMs,
        answer: 'not_json',
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ReachError(t('errors.central.shape'), res.status, UNEXPECTED_ANSWER, {
        where,
        elapsedMs,
        answer: 'shape',
      });
    }
    return { value: parsed.data, elapsedMs, status: res.status };
  }

  /** PROTOCOL §5 heartbeat; a 503 with `state: 0` is an answer, not an error. */
  async heartbeat(timeoutMs?: number): Promise<Timed<HeartbeatResponse>> {
    const answer = await this.#json(
      heartbeatAnswer,
      'GET',
      '/heartbeat',
      undefined,
      [200, 503],
      timeoutMs,
    );
    const full = heartbeatResponse.safeParse(answer.value);
    if (full.success) return { ...answer, value: full.data };
    // The summary alone: an svc central service that keeps its details for its trusted
    // networks and signed-in administrators. It answers; the console needs a sign-in (or to be
    // inside TRUSTED_NETWORKS) to read more, never "not an svc central service".
    if (answer.value.service !== SERVICE_NAME) {
      throw new ReachError(t('errors.central.shape'), answer.status, UNEXPECTED_ANSWER, {
        where: new URL(this.baseUrl).host,
        elapsedMs: answer.elapsedMs,
        answer: 'shape',
      });
    }
    throw new ReachError(t('errors.central.detailsWithheld'), answer.status, DETAILS_WITHHELD, {
      where: new URL(this.baseUrl).host,
      elapsedMs: answer.elapsedMs,
      answer: 'summary',
      params: { state: answer.value.state, signedIn: this.user ? 1 : 0 },
    });
  }

  /** The panel route (PROTOCOL §5): where the central service sends recognition events. */
  panelRoute(): Promise<Timed<PanelRoute>> {
    return this.#json(panelRoute, 'GET', '/panel/route');
  }

  /**
   * Changes the signed-in account's password (PROTOCOL §6). The central service ends the other
   * sessions and answers with a new session cookie, which replaces the old one here.
   */
  async changePassword(currentPassword: string, newPassword: string): Promise<SessionUser> {
    const { res } = await this.#raw('POST', '/auth/password', { currentPassword, newPassword });
    const text = await res.text();
    if (res.status !== 204) {
      const error = errorOf(text);
      throw new ReachError(
        error ? centralRefusal(error.code, error.message, error.params) : `HTTP ${res.status}`,
        res.status,
        error?.code ?? null,
      );
    }
    this.#user = (await this.#json(userResponse, 'GET', '/auth/me')).value.user;
    return this.#user;
  }

  /** Fetches a page of the site (`/`, `/login`) and says what came back. */
  async page(path: string): Promise<{ status: number; bytes: number; type: string }> {
    const url = new URL(path, this.baseUrl + '/').toString();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs) });
      const bytes = (await res.arrayBuffer()).byteLength;
      return { status: res.status, bytes, type: res.headers.get('content-type') ?? '' };
    } catch (err) {
      throw describeFetchError(err, new URL(url).host, this.#timeoutMs);
    }
  }

  /** `code`: the account's second factor (authenticator or recovery code), when it has one. */
  async signIn(username: string, password: string, code?: string): Promise<SessionUser> {
    this.#cookies.clear();
    const csrf = await this.#json(csrfResponse, 'GET', '/auth/csrf');
    this.#csrf = csrf.value.token;
    const login = await this.#json(userResponse, 'POST', '/auth/login', {
      username,
      password,
      ...(code !== undefined && { code }),
    });
    this.#user = login.value.user;
    return this.#user;
  }

  async signOut(): Promise<void> {
    if (this.#user) {
      await this.#raw('POST', '/auth/logout', {}).catch(() => undefined);
    }
    this.#user = null;
    this.#cookies.clear();
    this.#csrf = null;
  }

  nodes(): Promise<Timed<DiscoveryNode[]>> {
    return this.#json(discoveryNodeList, 'GET', '/discovery/nodes');
  }

  onlineCount(): Promise<Timed<{ count: number }>> {
    return this.#json(onlineCount, 'GET', '/device/online-count');
  }

  async configure(request: ConfigureRequest): Promise<ConfigureResult[]> {
    const timeoutMs = Math.max(this.#timeoutMs, CONFIGURE_TIMEOUT_MS);
    return (
      await this.#json(
        configureResponse,
        'POST',
        '/discovery/configure',
        request,
        undefined,
        timeoutMs,
      )
    ).value.results;
  }

  organizations() {
    return this.#json(list(named), 'GET', '/organizations');
  }
  spaces() {
    return this.#json(list(named), 'GET', '/spaces?pageSize=200');
  }
  devices() {
    return this.#json(list(deviceLite), 'GET', '/devices?pageSize=200');
  }
  people(query: string) {
    const q = new URLSearchParams({ q: query, pageSize: '20' });
    return this.#json(list(personLite), 'GET', `/people?${q.toString()}`);
  }
  createPerson(body: { name: string; idNumber: string; spaceIds: string[] }) {
    return this.#json(personLite, 'POST', '/people', body);
  }
  async putPhoto(id: string, jpeg: Uint8Array): Promise<string> {
    const { res } = await this.#raw(
      'PUT',
      `/people/${id}/photo`,
      jpeg,
      'image/jpeg',
      this.#photoTimeoutMs,
    );
    const text = await res.text();
    if (res.status !== 200) {
      const error = errorOf(text);
      throw new ReachError(
        t('errors.central.photoRefused', {
          reason: error
            ? centralRefusal(error.code, error.message, error.params)
            : `HTTP ${res.status}`,
        }),
        res.status,
        error?.code ?? null,
      );
    }
    return z.object({ photoSha256: z.string() }).parse(JSON.parse(text)).photoSha256;
  }
  /** The person's photo: its size and type only, never kept. */
  async photoFacts(id: string): Promise<{ status: number; bytes: number; type: string }> {
    const { res } = await this.#raw('GET', `/people/${id}/photo`);
    const bytes = (await res.arrayBuffer()).byteLength;
    return { status: res.status, bytes, type: res.headers.get('content-type') ?? '' };
  }
  async deletePerson(id: string): Promise<void> {
    const { res } = await this.#raw('DELETE', `/people/${id}`);
    if (res.status !== 204 && res.status !== 200) {
      const error = errorOf(await res.text());
      throw new ReachError(
        t('errors.central.notErased', {
          reason: error
            ? centralRefusal(error.code, error.message, error.params)
            : `HTTP ${res.status}`,
        }),
        res.status,
        error?.code ?? null,
      );
    }
  }
  async personExists(id: string): Promise<boolean> {
    const { res } = await this.#raw('GET', `/people/${id}`);
    await res.arrayBuffer();
    return res.status === 200;
  }
  personSync(id: string): Promise<Timed<PersonSyncOut>> {
    return this.#json(personSyncOut, 'GET', `/people/${id}/sync`);
  }
  /** The person's tasks on every device; the `delete` ones remain once the person is erased. */
  async personTasks(id: string): Promise<SyncTaskOut[]> {
    const query = new URLSearchParams({ personId: id, pageSize: '200' });
    return (await this.#json(syncTaskList, 'GET', `/sync/tasks?${query.toString()}`)).value.items;
  }
  events(query: Record<string, string>) {
    return this.#json(
      list(eventLite),
      'GET',
      `/recognition/events?${new URLSearchParams(query).toString()}`,
    );
  }
  audit(pageSize = 100) {
    return this.#json(list(auditItem), 'GET', `/audit?pageSize=${pageSize}`);
  }
  /**
   * Hands the report file to the central service, which computes its SHA-256 itself, keeps it
   * (one record per digest) and answers with what it recorded.
   */
  uploadReport(json: string) {
    return this.#json(acceptanceReportRecord, 'POST', '/acceptance/reports', { report: json });
  }

  /** The session's cookie values and CSRF token: never to appear in anything recorded. */
  secretValues(): string[] {
    return [...this.#cookies.values(), ...(this.#csrf ? [this.#csrf] : [])];
  }
}
