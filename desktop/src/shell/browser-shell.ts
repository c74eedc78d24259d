import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleApi } from '../core/api.js';
import { acceptLanguageTags, pickLocale } from '@svc/shared';
import { tIn } from '../core/i18n.js';
import { createIpcHandlers, IpcArgumentError } from '../core/ipc.js';
import { methodRoute } from '../core/ipc-channels.js';
import {
  CONTENT_SECURITY_POLICY,
  NONCE_PLACEHOLDER,
  contentTypeFor,
  cspWithStyleNonce,
} from '../core/security.js';
import path from 'node:path';

export interface BrowserShell {
  /** The URL to open once: it carries the one-time token. */
  url: string;
  origin: string;
  /** A new one-time link (the unused earlier one stops working); for a browser without the cookie. */
  freshLink(): string;
  close(): Promise<void>;
}

const COOKIE = 'svc_console';
/**
 * The access cookie outlives a browser restart (a technician closes the browser at lunch); it
 * is worth nothing once this console process ends, since the session secret dies with it.
 */
const COOKIE_MAX_AGE_S = 7 * 24 * 3600;

/**
 * What a browser shows instead of JSON when it arrives without access, in the language it asks
 * for (`Accept-Language`: the console's own choice is not known before access).
 */
function accessPage(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  key: 'noAccess' | 'linkUsed',
): void {
  const lng = pickLocale(acceptLanguageTags(req.headers['accept-language']));
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
  });
  res.end(
    `<!doctype html><html lang="${lng}"><head><meta charset="utf-8"><title>${tIn(lng, 'app.title')}</title>` +
      `<meta name="viewport" content="width=device-width"></head><body><h1>${tIn(lng, 'app.title')}</h1>` +
      `<p>${tIn(lng, `access.${key}`)}</p></body></html>`,
  );
}

const wantsPage = (req: http.IncomingMessage) =>
  req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');

/** The page's CSP: the Electron one, plus fetch/SSE to this origin and Mantine's nonce'd style tag. */
function pageCsp(nonce: string): string {
  return cspWithStyleNonce(
    nonce,
    CONTENT_SECURITY_POLICY.replace("connect-src 'none'", "connect-src 'self'"),
  );
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOf(req: http.IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

function fail(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: { code, message } }));
}

async function body(req: http.IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RangeError('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The console in a browser: serves the renderer on 127.0.0.1 (random port) and the ConsoleApi
 * as `POST /api/call/<method>` with the IPC argument schemas, plus `GET /api/events` (SSE).
 * The token in the printed URL is good once: it is swapped for an HttpOnly SameSite=Strict
 * cookie and the page reloads without it. Every request needs that cookie, the exact Host, and
 * (for calls) this origin as `Origin`, so another site or a DNS-rebound name gets nothing.
 */
export async function startBrowserShell(
  api: ConsoleApi,
  options: { rendererDir: string; port?: number },
): Promise<BrowserShell> {
  // The one link that may be swapped for the cookie; null once used.
  let oneTimeToken: string | null = randomBytes(24).toString('base64url');
  const session = randomBytes(24).toString('base64url');
  const handlers = new Map(createIpcHandlers(api).map((h) => [methodRoute(h.method), h] as const));
  let origin = '';
  // Cookies ignore ports: two consoles on one laptop must not overwrite each other's.
  let cookieName = COOKIE;
  const streams = new Set<http.ServerResponse>();
  const unsubscribe = api.onTerminalsChanged((terminals) => {
    const frame = `event: terminals\ndata: ${JSON.stringify(terminals)}\n\n`;
    for (const s of streams) s.write(frame);
  });

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (req.headers.host !== new URL(origin).host)
        return fail(res, 421, 'wrong_host', 'Wrong host.');
      const authed = (() => {
        const c = cookieOf(req, cookieName);
        return c !== null && same(c, session);
      })();
      // The first visit: the token for a cookie, then the same page without the token.
      if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
        if (oneTimeToken === null || !same(url.searchParams.get('token') ?? '', oneTimeToken)) {
          if (authed) return redirectHome(res);
          return wantsPage(req)
            ? accessPage(req, res, 403, 'linkUsed')
            : fail(res, 403, 'bad_token', tIn('en', 'access.linkUsed'));
        }
        oneTimeToken = null;
        res.writeHead(303, {
          location: '/',
          'set-cookie': `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${COOKIE_MAX_AGE_S}`,
          'cache-control': 'no-store',
        });
        return res.end();
      }
      if (!authed) {
        return wantsPage(req) && !url.pathname.startsWith('/api/')
          ? accessPage(req, res, 401, 'noAccess')
          : fail(res, 401, 'unauthorized', tIn('en', 'access.noAccess'));
      }
      if (url.pathname.startsWith('/api/')) {
        if (
          req.headers.origin !== origin &&
          !(req.method === 'GET' && req.headers['sec-fetch-site'] === 'same-origin')
        ) {
          return fail(res, 403, 'bad_origin', 'Requests must come from the console page.');
        }
      }
      if (req.method === 'GET' && url.pathname === '/api/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        res.write(`event: terminals\ndata: ${JSON.stringify(await api.listTerminals())}\n\n`);
        streams.add(res);
        req.on('close', () => streams.delete(res));
        return;
      }
      const call = /^\/api\/call\/([a-z-]+)$/.exec(url.pathname);
      if (call) {
        if (req.method !== 'POST') return fail(res, 405, 'method_not_allowed', 'POST only.');
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
          return fail(res, 415, 'unsupported_media_type', 'Send application/json.');
        }
        const handler = handlers.get(call[1] ?? '');
        if (!handler) return fail(res, 404, 'not_found', 'No such console method.');
        let args: unknown;
        try {
          args = JSON.parse(await body(req, 12_000_000));
        } catch (err) {
          return err instanceof RangeError
            ? fail(res, 413, 'too_large', 'The request is too large.')
            : fail(res, 400, 'invalid_input', 'The body is not JSON.');
        }
        if (!Array.isArray(args))
          return fail(res, 400, 'invalid_input', 'The body must be an array of arguments.');
        try {
          const result = await handler.handle(args);
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          return res.end(JSON.stringify(result ?? null));
        } catch (err) {
          if (err instanceof IpcArgumentError) return fail(res, 400, 'invalid_input', err.message);
          return fail(res, 422, 'failed', err instanceof Error ? err.message : String(err));
        }
      }
      if (req.method !== 'GET') return fail(res, 405, 'method_not_allowed', 'GET only.');
      return serveFile(res, options.rendererDir, url.pathname);
    })().catch((err: unknown) => {
      if (!res.headersSent) fail(res, 500, 'internal_error', 'The console failed to answer.');
      console.error('[svc console]', err);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  cookieName = `${COOKIE}_${port}`;
  const link = () => `${origin}/?token=${oneTimeToken ?? ''}`;
  return {
    url: link(),
    origin,
    freshLink: () => {
      oneTimeToken = randomBytes(24).toString('base64url');
      return link();
    },
    close: () =>
      new Promise<void>((resolve) => {
        unsubscribe();
        for (const s of streams) s.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function redirectHome(res: http.ServerResponse): void {
  res.writeHead(303, { location: '/', 'cache-control': 'no-store' });
  res.end();
}

async function serveFile(res: http.ServerResponse, rendererDir: string, pathname: string) {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname).replace(/^\/+/, '');
  } catch {
    return fail(res, 400, 'invalid_input', 'Bad path.');
  }
  if (relative === '' || !path.extname(relative)) relative = 'index.html';
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, relative);
  const type = contentTypeFor(file);
  if (!file.startsWith(root + path.sep) || relative.includes('\0') || !type) {
    return fail(res, 404, 'not_found', 'Not found.');
  }
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch {
    return fail(res, 404, 'not_found', 'Not found.');
  }
  const nonce = randomBytes(16).toString('base64');
  if (relative === 'index.html') {
    content = Buffer.from(content.toString('utf8').replace(NONCE_PLACEHOLDER, nonce));
  }
  res.writeHead(200, {
    'content-type': type,
    'content-security-policy': pageCsp(nonce),
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  res.end(content);
}
