import {
  CSRF_HEADER,
  configureResponse,
  csrfResponse,
  discoveryNodeList,
  heartbeatResponse,
  onlineCount,
  personSyncOut,
  userResponse,
  type ConfigureRequest,
  type ConfigureResult,
  type DiscoveryNode,
  type HeartbeatResponse,
  type PersonSyncOut,
  type SessionUser,
} from '@svc/shared';
import { z } from 'zod';
import { ReachError, describeFetchError, errorMessage } from './http.js';

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
 * The central service seen from the laptop (PROTOCOL §5–§7). It keeps the session cookie in
 * memory only; the password goes to `/api/auth/login` and nowhere else, and is never kept.
 */
export class CentralClient {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  #cookies = new Map<string, string>();
  #csrf: string | null = null;
  #user: SessionUser | null = null;

  constructor(baseUrl: string, timeoutMs = 8_000) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ReachError(`not an http(s) address: ${baseUrl}`);
    }
    this.baseUrl = url.origin + url.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
  }

  get user(): SessionUser | null {
    return this.#user;
  }

  async #raw(method: string, path: string, body?: unknown, type?: string) {
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
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw describeFetchError(err, new URL(this.baseUrl).host, this.#timeoutMs);
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
  ): Promise<Timed<T>> {
    const { res, elapsedMs } = await this.#raw(method, path, body);
    const text = await res.text();
    if (!okStatuses.includes(res.status)) {
      const why = errorMessage(text) ?? `HTTP ${res.status}`;
      throw new ReachError(`${method} /api${path}: ${why} (${res.status})`, res.status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ReachError(`${method} /api${path}: the answer is not JSON`, res.status);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ReachError(`${method} /api${path}: an answer of a shape the console does not know`);
    }
    return { value: parsed.data, elapsedMs, status: res.status };
  }

  /** PROTOCOL §5 heartbeat; a 503 with `state: 0` is an answer, not an error. */
  heartbeat(): Promise<Timed<HeartbeatResponse>> {
    return this.#json(heartbeatResponse, 'GET', '/heartbeat', undefined, [200, 503]);
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

  async signIn(username: string, password: string): Promise<SessionUser> {
    this.#cookies.clear();
    const csrf = await this.#json(csrfResponse, 'GET', '/auth/csrf');
    this.#csrf = csrf.value.token;
    const login = await this.#json(userResponse, 'POST', '/auth/login', { username, password });
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
    return (await this.#json(configureResponse, 'POST', '/discovery/configure', request)).value
      .results;
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
    const { res } = await this.#raw('PUT', `/people/${id}/photo`, jpeg, 'image/jpeg');
    const text = await res.text();
    if (res.status !== 200) {
      throw new ReachError(`photo upload: ${errorMessage(text) ?? `HTTP ${res.status}`}`);
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
      throw new ReachError(`delete person: ${errorMessage(await res.text()) ?? res.status}`);
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
  recordReport(body: { sha256: string; title: string; layers: number; passed: number }) {
    return this.#json(
      z.object({ recorded: z.literal(true), at: z.string() }),
      'POST',
      '/acceptance/reports',
      body,
    );
  }
}
