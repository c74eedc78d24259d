import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppContext } from '../context.js';
import { httpErrors } from './errors.js';

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request id a client sent (when it is a sane one), or a new one. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The headers helmet sets, computed once (they do not depend on the request). */
export function helmetHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push([name, String(value)]);
    },
    removeHeader() {},
  };
  helmet()({} as IncomingMessage, res as unknown as ServerResponse, () => {});
  return headers;
}

/**
 * The start of every device-authenticated route (PROTOCOL §3), mounted ahead of the session
 * machinery: a device call carries a bearer key and a small JSON body, and at thousands of
 * events per second the per-request work of the general chain (pino-http's child logger and
 * serializers, helmet's header functions, the session loader) cost more CPU than the event
 * itself. What stays: the request id (header and error logs), the same security and no-store
 * headers, the database readiness gate, and a log line per request: info for refusals (4xx),
 * error for 5xx (also logged by the error handler), debug for the accepted ones. The routes
 * served while the database is down (the heartbeat, polled by monitoring) start with it too,
 * without the readiness gate.
 */
export function deviceEntry(
  ctx: Pick<AppContext, 'db' | 'logger'>,
  { readinessGate = true }: { readinessGate?: boolean } = {},
): RequestHandler {
  const headers = helmetHeaders();
  const { logger } = ctx;
  return (req, res, next) => {
    const id = requestId(req);
    (req as { id?: unknown }).id = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of headers) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    const started = Date.now();
    res.once('finish', () =>
      logDeviceRequest(logger, id, req.method, req.originalUrl, res.statusCode, started),
    );
    next(!readinessGate || ctx.db.ready ? undefined : httpErrors.databaseUnavailable());
  };
}

/** A device request's log line: info for refusals (4xx), error for 5xx, debug for the rest. */
export function logDeviceRequest(
  logger: AppContext['logger'],
  id: string,
  method: string | undefined,
  url: string | undefined,
  status: number,
  started: number,
): void {
  const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      req: { id, method, path: (url ?? '').split('?')[0] },
      res: { statusCode: status },
      responseTime: Date.now() - started,
    },
    status >= 500 ? 'request errored' : 'request completed',
  );
}
