import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { z } from 'zod';
import type { AppContext } from '../context.js';
import { logAccess } from './access-log.js';
import { helmetHeaders } from './device-entry.js';
import { requestId } from './request-id.js';
import { parseWith, toHttpError } from './errors.js';
import { limitBytes, plainJson, readPlainJson } from './fast-json.js';
import { cidrMatcher } from './net.js';

/** A device route's answer: status and JSON body. */
export interface DeviceAnswer {
  status: number;
  body: unknown;
}

export type DeviceHandler<T> = (body: T, key: string) => Promise<DeviceAnswer>;

/** A polled GET's answer, with how its access line is logged (access-log.ts). */
export interface PollAnswer extends DeviceAnswer {
  quiet?: boolean;
  expected?: boolean;
}

/** A polled GET: `client` is the caller's address (no proxy spoke for it). */
export type PollHandler = (req: IncomingMessage, client: string) => Promise<PollAnswer>;

interface FastRoute {
  max: number;
  schema: z.ZodType;
  handler: DeviceHandler<never>;
}

/** The same credential syntax as the general path's bearer check (api.ts). */
export const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{16,256})$/;

/**
 * The hottest device POSTs (a recognition event per person walking past, thousands a second
 * across a site) answered straight from Node's request handler, ahead of Express: its
 * per-request work (prototype swaps, router walk, response helpers) cost as much CPU as the
 * event's own SQL. The route stays registered on the general path too, with the same handler;
 * a request takes this path only when it is the plain case — exact path, no query, plain UTF-8
 * JSON with a Content-Length, a well-formed bearer credential, the database ready — and every
 * other request (another media type, chunked, no credential, database down) goes the general
 * way, which answers it as before. The answers here are the general path's: the same headers
 * (request id, helmet's, no-store), error bodies (errors.ts) and access lines (access-log.ts).
 */
export class DeviceFastPath {
  private readonly routes = new Map<string, FastRoute>();
  private readonly polls = new Map<string, PollHandler>();
  private readonly fixed: string[];

  private readonly trustedProxy: (address: string) => boolean;

  constructor(private readonly ctx: Pick<AppContext, 'db' | 'logger' | 'config'>) {
    this.trustedProxy = cidrMatcher(ctx.config.trustedProxies);
    this.fixed = [
      ...helmetHeaders().flat(),
      'Cache-Control',
      'no-store',
      'Content-Type',
      'application/json; charset=utf-8',
    ];
  }

  /** `path` as the request line has it ('/api/…'); the body is checked with `schema`. */
  post<S extends z.ZodType>(
    path: string,
    opts: { schema: S; limit: string },
    handler: DeviceHandler<z.infer<S>>,
  ): void {
    this.routes.set(path, {
      max: limitBytes(opts.limit),
      schema: opts.schema,
      handler,
    });
  }

  /**
   * A GET that monitoring polls (the heartbeat), answered here when it is the plain case: exact
   * path, no query. The caller is who Express would say (`req.ip`): a proxy in TRUSTED_PROXIES
   * (svc_web) speaks for the client through X-Forwarded-For, nobody else does — the same
   * proxy-addr walk with the same trust rule (app.ts). The handler also serves the general path.
   */
  poll(path: string, handler: PollHandler): void {
    this.polls.set(path, handler);
  }

  /** Answers the request and returns true, or returns false (untouched) for the general path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method === 'GET') return this.handlePoll(req, res);
    const route = req.method === 'POST' ? this.routes.get(req.url ?? '') : undefined;
    if (!route || !this.ctx.db.ready) return false;
    const { headers } = req;
    const declared = Number(headers['content-length'] ?? NaN);
    if (!(declared >= 0) || headers['transfer-encoding'] !== undefined || !plainJson(req)) {
      return false;
    }
    const key = BEARER.exec(headers.authorization ?? '')?.[1];
    if (key === undefined) return false;

    const id = requestId(req);
    const started = performance.now();
    const fail = (err: unknown) => {
      const e = toHttpError(err, this.ctx.logger, id);
      this.send(req, res, id, started, e.status, e.body(), e.headers);
    };
    if (declared > route.max) {
      fail(Object.assign(new Error('request entity too large'), { type: 'entity.too.large' }));
      req.resume();
      return true;
    }
    readPlainJson(req, route.max, (err, raw) => {
      if (err) {
        fail(err);
        return;
      }
      let body: never;
      try {
        body = parseWith(route.schema, raw) as never;
      } catch (e) {
        fail(e);
        return;
      }
      route
        .handler(body, key)
        .then((answer) => this.send(req, res, id, started, answer.status, answer.body), fail);
    });
    return true;
  }

  private handlePoll(req: IncomingMessage, res: ServerResponse): boolean {
    const handler = this.polls.get(req.url ?? '');
    if (!handler || req.socket.remoteAddress === undefined) return false;
    const client =
      req.headers['x-forwarded-for'] === undefined
        ? req.socket.remoteAddress
        : proxyaddr(req, this.trustedProxy);
    const id = requestId(req);
    const started = performance.now();
    handler(req, client).then(
      (a) => this.send(req, res, id, started, a.status, a.body, undefined, a),
      (err: unknown) => {
        const e = toHttpError(err, this.ctx.logger, id);
        this.send(req, res, id, started, e.status, e.body(), e.headers);
      },
    );
    return true;
  }

  private send(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    started: number,
    status: number,
    body: unknown,
    extra?: Record<string, string>,
    log: { quiet?: boolean; expected?: boolean } = {},
  ): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    const headers = [...this.fixed, 'X-Request-Id', id];
    for (const [k, v] of Object.entries(extra ?? {})) headers.push(k, v);
    headers.push('Content-Length', String(Buffer.byteLength(text)));
    res.writeHead(status, headers);
    res.end(text);
    logAccess(this.ctx.logger, { id, method: req.method, url: req.url, status, started, ...log });
  }
}
