import { CSRF_HEADER } from '@svc/shared';

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
  /** The raw Set-Cookie lines of this reply. */
  setCookies: string[];
}

/** A tiny browser stand-in: keeps cookies, fetches CSRF tokens, speaks JSON. */
export class TestClient {
  private readonly jar = new Map<string, string>();
  private csrfToken: string | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  async request(
    method: string,
    path: string,
    opts: { body?: unknown; csrf?: boolean; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...opts.headers };
    if (opts.csrf) headers[CSRF_HEADER] = await this.csrf();
    if (this.jar.size > 0) {
      headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    let payload: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    let body: unknown = text;
    if (res.headers.get('content-type')?.includes('application/json')) body = JSON.parse(text);
    return { status: res.status, headers: res.headers, body, setCookies };
  }

  async csrf(): Promise<string> {
    if (!this.csrfToken) {
      const reply = await this.request('GET', '/api/auth/csrf');
      this.csrfToken = (reply.body as { token: string }).token;
    }
    return this.csrfToken;
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  post(
    path: string,
    body?: unknown,
    opts: { csrf?: boolean; headers?: Record<string, string> } = {},
  ) {
    return this.request('POST', path, { body, csrf: opts.csrf ?? true, headers: opts.headers });
  }

  login(username: string, password: string) {
    return this.post('/api/auth/login', { username, password });
  }
}

export function errorCode(reply: Reply): string | undefined {
  return (reply.body as { error?: { code?: string } }).error?.code;
}
