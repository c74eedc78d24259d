import { CSRF_HEADER } from '@svc/shared';

/** The central service's administrator API, for a test's setup (what an admin does in the site). */
export class AdminApi {
  #csrf = '';
  #cookie = '';
  constructor(readonly url: string) {}

  async call(method: string, p: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { [CSRF_HEADER]: this.#csrf, cookie: this.#cookie };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.url + p, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
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

  /** A new administrator whose password is `password` (the first-sign-in change done). */
  async createAdmin(username: string, password: string): Promise<void> {
    const made = (await this.call('POST', '/api/administrators', {
      username,
      role: 'admin',
    })) as { temporaryPassword: string };
    const them = new AdminApi(this.url);
    await them.signIn(username, made.temporaryPassword);
    await them.call('POST', '/api/auth/password', {
      currentPassword: made.temporaryPassword,
      newPassword: password,
    });
  }
}
