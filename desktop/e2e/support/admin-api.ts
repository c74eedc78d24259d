import { CSRF_HEADER } from '@svc/shared';

/** The administrator API straight to svc_server: what an administrator does in the site. */
export class AdminApi {
  #csrf = '';
  #cookie = '';
  constructor(readonly url: string) {}

  /** One call; a body is JSON unless `type` says otherwise (a photo: bytes). */
  async call(
    method: string,
    p: string,
    body?: unknown,
    type = 'application/json',
  ): Promise<unknown> {
    const headers: Record<string, string> = { [CSRF_HEADER]: this.#csrf, cookie: this.#cookie };
    if (body !== undefined) headers['content-type'] = type;
    const res = await fetch(this.url + p, {
      method,
      headers,
      ...(body !== undefined && {
        body: body instanceof Buffer ? new Uint8Array(body) : JSON.stringify(body),
      }),
    });
    const set = res.headers.getSetCookie().map((l) => l.split(';')[0]);
    if (set.length) this.#cookie = [...this.#cookie.split('; ').filter(Boolean), ...set].join('; ');
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : null;
  }

  async signIn(username: string, password: string): Promise<void> {
    this.#csrf = ((await this.call('GET', '/api/auth/csrf')) as { token: string }).token;
    await this.call('POST', '/api/auth/login', { username, password });
  }

  /** A new account of `role`; it must change its one-time password (returned) at first sign-in. */
  async createAdministrator(username: string, role: 'admin' | 'operator'): Promise<string> {
    const created = (await this.call('POST', '/api/administrators', { username, role })) as {
      temporaryPassword: string;
    };
    return created.temporaryPassword;
  }

  /** A new administrator whose password is `password` (the first-sign-in change done). */
  async createAdmin(username: string, password: string): Promise<void> {
    const temporary = await this.createAdministrator(username, 'admin');
    const them = new AdminApi(this.url);
    await them.signIn(username, temporary);
    await them.call('POST', '/api/auth/password', {
      currentPassword: temporary,
      newPassword: password,
    });
  }

  async peopleNamed(prefix: string): Promise<{ id: string; name: string }[]> {
    const q = new URLSearchParams({ q: prefix, pageSize: '50' });
    return (
      (await this.call('GET', `/api/people?${q.toString()}`)) as {
        items: { id: string; name: string }[];
      }
    ).items;
  }
}
