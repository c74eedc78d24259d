import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppContext } from '../context.js';
import { httpErrors } from './errors.js';
import { logAccess, pollFilter } from './access-log.js';
import { requestId } from './request-id.js';

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
 * events per second the per-request work of the general chain (helmet's header functions,
 * the session loader) cost more CPU than the event itself. What stays: the request id (header
 * and error logs), the same security and no-store headers, the database readiness gate, and
 * the access line (access-log.ts; a heartbeat from a trusted address at debug). The routes
 * served while the database is down (the heartbeat, polled by monitoring) start with it too,
 * without the readiness gate.
 */
export function deviceEntry(
  ctx: Pick<AppContext, 'config' | 'db' | 'logger'>,
  { readinessGate = true }: { readinessGate?: boolean } = {},
): RequestHandler {
  const headers = helmetHeaders();
  const { logger } = ctx;
  const quiet = pollFilter(ctx);
  return (req, res, next) => {
    const id = requestId(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of headers) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    const started = performance.now();
    res.once('close', () =>
      logAccess(logger, {
        id,
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        started,
        quiet: quiet(req, req.originalUrl),
        // While migrations run the heartbeat answers 503 with state 0 by design.
        expected: !readinessGate && !ctx.db.ready,
        aborted: !res.writableFinished,
      }),
    );
    next(!readinessGate || ctx.db.ready ? undefined : httpErrors.databaseUnavailable());
  };
}
