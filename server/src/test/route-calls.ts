import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE } from '@svc/shared';
import type { RegisteredRoute } from '../platform/http/api.js';
import type { TestServer } from './harness.js';
import type { TestClient } from './http-client.js';

/**
 * Generic calls for the cross-cutting route tests (route table, injection corpus): any method,
 * JSON or binary bodies, a session's cookies and CSRF token, or a bearer credential.
 */

export interface CallReply {
  status: number;
  contentType: string;
  /** Parsed JSON when the answer is JSON, else the raw bytes. */
  body: unknown;
  bytes: Buffer;
}

export interface CallOptions {
  headers?: Record<string, string>;
  json?: unknown;
  raw?: { type: string; bytes: Buffer };
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<CallReply> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.raw) {
    headers['content-type'] = opts.raw.type;
    body = opts.raw.bytes;
  }
  const res = await fetch(baseUrl + path, { method: method.toUpperCase(), headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type') ?? '';
  let parsed: unknown = bytes;
  if (contentType.includes('application/json')) {
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      parsed = bytes;
    }
  }
  return { status: res.status, contentType, body: parsed, bytes };
}

/** The headers a signed-in browser sends: both cookies and the CSRF token. */
export async function sessionHeaders(client: TestClient): Promise<Record<string, string>> {
  const token = await client.csrf();
  const cookie = [SESSION_COOKIE, CSRF_COOKIE]
    .map((name) => [name, client.cookie(name)] as const)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value!}`)
    .join('; ');
  return { cookie, [CSRF_HEADER]: token };
}

export function bearer(token = `unknown-${randomUUID()}`): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

const PARAM = /:([A-Za-z_$][\w$]*)/g;

export function paramNames(route: RegisteredRoute): string[] {
  return [...route.fullPath.matchAll(PARAM)].map((m) => m[1]!);
}

/**
 * The route's path with its parameters filled in: given values are URL-encoded (or used as is
 * when `raw`), the others get a random uuid.
 */
export function fillPath(
  route: RegisteredRoute,
  values: Record<string, string> = {},
  raw: Record<string, string> = {},
): string {
  return route.fullPath.replace(PARAM, (_m, name: string) =>
    name in raw ? raw[name]! : encodeURIComponent(values[name] ?? randomUUID()),
  );
}

export function label(route: RegisteredRoute): string {
  return `${route.spec.method.toUpperCase()} ${route.fullPath}`;
}

/** The Express application behind a running server (its `request` listener). */
export function expressApp(server: TestServer): Express {
  return server.app;
}

interface Layer {
  name?: string;
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * Every route Express has mounted, as `method /full/path`, by walking the Express 5 router
 * stack and the routers nested in it. Sub-applications cannot be looked into: they are listed
 * as `app <path>` so a test refuses them.
 */
export function mountedRoutes(app: Express): string[] {
  const out: string[] = [];
  const visit = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      const at = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          out.push(`${method === '_all' ? 'all' : method} ${prefix}${String(layer.route.path)}`);
        }
      } else if (layer.name === 'mounted_app') {
        out.push(`app ${prefix}${at}`);
      } else if (Array.isArray(layer.handle?.stack)) {
        visit(layer.handle.stack, prefix + at);
      }
    }
  };
  visit((app.router as unknown as { stack: Layer[] }).stack, '');
  return out;
}
