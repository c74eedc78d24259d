import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import type { Logger } from '../logger.js';
import { requestId } from './request-id.js';
import { cidrMatcher } from './net.js';

/** Paths a monitor or a device polls every few seconds: debug when the caller is trusted. */
const POLLED = new Set(['/api/heartbeat', '/api/device/heartbeat']);
/** Long enough for every API path with an id in it; longer ones are cut (the line stays short). */
const MAX_PATH = 72;
/** A W3C trace id or a UUID fits; a longer client-chosen id is logged by its start. */
const MAX_ID = 36;

export interface AccessEntry {
  id: string;
  method: string | undefined;
  /** The request target; only its path is logged (a query may hold names or ID numbers). */
  url: string | undefined;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
  userId?: string | null | undefined;
  /** A poll from a trusted address (POLLED): logged at debug unless refused. */
  quiet?: boolean;
  /** A 5xx that is the answer by design (the heartbeat's 503 while the database starts). */
  expected?: boolean;
  aborted?: boolean;
}

/**
 * The one access-log line of a request: method, path, status, duration, request id and user,
 * at info (debug for answered polls from trusted addresses, error for 5xx). No header is logged: it is the line an
 * operator greps, and it stays under 300 bytes.
 */
export function logAccess(logger: Logger, e: AccessEntry): void {
  const level =
    e.status >= 500 && !e.expected ? 'error' : e.quiet && e.status < 400 ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const path = (e.url ?? '').split('?')[0]!;
  logger[level](
    {
      reqId: e.id.slice(0, MAX_ID),
      method: e.method,
      path: path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 3)}...` : path,
      status: e.status,
      ms: Math.round((performance.now() - e.started) * 10) / 10,
      user: e.userId ?? null,
      ...(e.aborted && { aborted: true }),
    },
    'request',
  );
}

/** Decides whether a request is a trusted poll (POLLED path from TRUSTED_NETWORKS). */
export function pollFilter(
  ctx: Pick<AppContext, 'config'>,
): (req: IncomingMessage & { ip?: string | undefined }, url: string | undefined) => boolean {
  const trusted = cidrMatcher(ctx.config.trustedNetworks);
  return (req, url) =>
    POLLED.has((url ?? '').split('?')[0]!) && trusted(req.ip ?? req.socket.remoteAddress);
}

/**
 * The general chain's request id (X-Request-Id) and access line. Device-key routes log through
 * their own entry (device-entry.ts) with the same function.
 */
export function accessLog(ctx: Pick<AppContext, 'config' | 'logger'>): RequestHandler {
  const quiet = pollFilter(ctx);
  return (req, res, next) => {
    const id = requestId(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    res.once('close', () =>
      logAccess(ctx.logger, {
        id,
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        started,
        userId: req.auth?.admin.id,
        quiet: quiet(req, req.originalUrl),
        aborted: !res.writableFinished,
      }),
    );
    next();
  };
}
