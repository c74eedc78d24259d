/**
 * Seeding through the administrator API, as a signed-in administrator would (CSRF token and
 * session cookie), straight to svc_server. Every name and number is generated.
 */
import { randomUUID } from 'node:crypto';
import type { APIRequest, APIRequestContext, APIResponse } from '@playwright/test';
import {
  CSRF_HEADER,
  administratorWithPassword,
  csrfResponse,
  deviceWithKey,
  personOut,
  spaceOut,
  type PersonCreate,
  type PersonOut,
  type SpaceOut,
} from '@svc/shared';
import { generatePassword } from './stack';

/** A short random tag that is also a valid name and ID-number prefix. */
export function tag(): string {
  return randomUUID().replace(/-/g, '').slice(0, 8);
}

async function ok(response: APIResponse, what: string): Promise<unknown> {
  if (!response.ok()) {
    throw new Error(`${what}: HTTP ${response.status()} ${await response.text()}`);
  }
  return response.status() === 204 ? undefined : ((await response.json()) as unknown);
}

export interface Account {
  username: string;
  password: string;
}

export class AdminApi {
  private csrf = '';

  private constructor(
    readonly request: APIRequestContext,
    readonly serverURL: string,
  ) {}

  /**
   * Signs in; when the account must change its password first, changes it to a generated one
   * (the answer's `password` is then the new one).
   */
  static async signIn(
    playwright: { request: APIRequest },
    serverURL: string,
    account: Account,
  ): Promise<{ api: AdminApi; account: Account }> {
    const request = await playwright.request.newContext({ baseURL: serverURL });
    const api = new AdminApi(request, serverURL);
    await api.refreshCsrf();
    const answer = (await ok(
      await request.post('/api/auth/login', {
        data: { username: account.username, password: account.password },
        headers: api.headers(),
      }),
      'sign-in',
    )) as { user: { mustChangePassword: boolean } };
    await api.refreshCsrf();
    if (!answer.user.mustChangePassword) return { api, account };
    const password = generatePassword(24);
    await api.post('/api/auth/password', {
      currentPassword: account.password,
      newPassword: password,
    });
    await api.refreshCsrf();
    return { api, account: { username: account.username, password } };
  }

  /** A client that has signed in as nobody yet (its CSRF token fetched): for sign-in attempts. */
  static async anonymous(
    playwright: { request: APIRequest },
    serverURL: string,
  ): Promise<AdminApi> {
    const api = new AdminApi(
      await playwright.request.newContext({ baseURL: serverURL }),
      serverURL,
    );
    await api.refreshCsrf();
    return api;
  }

  /** One sign-in attempt; answers the HTTP status (200, 401, 429 ...). */
  async tryLogin(username: string, password: string): Promise<number> {
    const response = await this.request.post('/api/auth/login', {
      data: { username, password },
      headers: this.headers(),
    });
    return response.status();
  }

  async dispose(): Promise<void> {
    await this.request.dispose();
  }

  private headers(): Record<string, string> {
    return { [CSRF_HEADER]: this.csrf };
  }

  private async refreshCsrf(): Promise<void> {
    const body = await ok(await this.request.get('/api/auth/csrf'), 'csrf');
    this.csrf = csrfResponse.parse(body).token;
  }

  async get(path: string): Promise<unknown> {
    return ok(await this.request.get(path), `GET ${path}`);
  }

  async post(path: string, data: unknown): Promise<unknown> {
    return ok(await this.request.post(path, { data, headers: this.headers() }), `POST ${path}`);
  }

  /** A POST whose refusal is the point: its status and body, whatever they are. */
  async postAnyway(path: string, data: unknown): Promise<{ status: number; body: unknown }> {
    const response = await this.request.post(path, { data, headers: this.headers() });
    return { status: response.status(), body: (await response.json()) as unknown };
  }

  async patch(path: string, data: unknown): Promise<unknown> {
    return ok(await this.request.patch(path, { data, headers: this.headers() }), `PATCH ${path}`);
  }

  async put(path: string, data: unknown): Promise<unknown> {
    return ok(await this.request.put(path, { data, headers: this.headers() }), `PUT ${path}`);
  }

  async delete(path: string): Promise<void> {
    await ok(await this.request.delete(path, { headers: this.headers() }), `DELETE ${path}`);
  }

  async createSpace(name: string): Promise<SpaceOut> {
    return spaceOut.parse(await this.post('/api/spaces', { name }));
  }

  async createPerson(body: PersonCreate): Promise<PersonOut> {
    return personOut.parse(await this.post('/api/people', body));
  }

  /** `acceptFace`: kept even when the face check refuses it (the administrator's word). */
  async putPhoto(personId: string, png: Buffer, acceptFace = false): Promise<void> {
    await ok(
      await this.request.put(
        `/api/people/${personId}/photo${acceptFace ? '?acceptFace=true' : ''}`,
        {
          data: png,
          headers: { ...this.headers(), 'Content-Type': 'image/png' },
        },
      ),
      'photo',
    );
  }

  /** A device (its key is only answered here) whose address nothing listens on. */
  async createDevice(name: string, spaceId?: string) {
    const sn = `WEB-${tag()}`.toUpperCase();
    return deviceWithKey.parse(
      await this.post('/api/devices', {
        sn,
        name,
        baseUrl: 'http://127.0.0.1:9',
        ...(spaceId !== undefined && { spaceId }),
      }),
    );
  }

  /** An operator (read-only) account with its first password already changed. */
  async createOperator(playwright: { request: APIRequest }): Promise<Account> {
    return this.createAccount(playwright, 'operator');
  }

  /** An account of this role in the working organization, its first password changed. */
  async createAccount(
    playwright: { request: APIRequest },
    role: 'admin' | 'operator',
  ): Promise<Account> {
    const created = administratorWithPassword.parse(
      await this.post('/api/administrators', {
        username: `${role === 'operator' ? 'op' : role}-${tag()}`,
        role,
      }),
    );
    const { api, account } = await AdminApi.signIn(playwright, this.serverURL, {
      username: created.username,
      password: created.temporaryPassword,
    });
    await api.dispose();
    return account;
  }
}

/** What a device sends: `POST /api/recognition/events` with its key (PROTOCOL §3). */
export async function postRecognition(
  request: APIRequestContext,
  serverURL: string,
  device: { sn: string; key: string },
  event: { personId: string | null; time?: Date; snapshot?: Buffer },
): Promise<string> {
  const response = await request.post(`${serverURL}/api/recognition/events`, {
    headers: { authorization: `Bearer ${device.key}` },
    data: {
      eventId: randomUUID(),
      sn: device.sn,
      personId: event.personId,
      score: 0.93,
      time: (event.time ?? new Date()).toISOString(),
      ...(event.snapshot !== undefined && { snapshot: event.snapshot.toString('base64') }),
    },
  });
  const body = (await ok(response, 'recognition event')) as { id: string };
  return body.id;
}

/** `POST /api/device/heartbeat`: the device counts as online for HEARTBEAT_TIMEOUT. */
export async function deviceHeartbeat(
  request: APIRequestContext,
  serverURL: string,
  device: { sn: string; key: string },
): Promise<void> {
  await ok(
    await request.post(`${serverURL}/api/device/heartbeat`, {
      headers: { authorization: `Bearer ${device.key}` },
      data: { sn: device.sn },
    }),
    'device heartbeat',
  );
}
