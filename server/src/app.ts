import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppContext } from './context.js';
import { cidrMatcher } from './http/net.js';
import { errorHandler, httpErrors, notFoundHandler } from './http/errors.js';
import { loadSession } from './auth/middleware.js';
import { buildApi } from './routes.js';
import type { Api } from './http/api.js';
import { accessLog } from './http/access-log.js';
import { kickSyncAfterChanges } from './sync/kick.js';
import { siteHandler } from './http/site.js';

export interface AppOptions {
  /** The built management site (`web/dist`) served at `/`; none: the API only. */
  siteRoot?: string;
}

type ExpressEntry = (
  req: IncomingMessage,
  res: ServerResponse,
  done?: (err?: unknown) => void,
) => void;

export function createApp(ctx: AppContext, opts: AppOptions = {}): { app: Express; api: Api } {
  const app = express();
  app.disable('x-powered-by');
  // API answers are never cached (no-store); hashing large bodies for an ETag would be waste.
  app.set('etag', false);
  // Only the configured proxies (svc_web) may speak for the client's address and scheme.
  const isTrustedProxy = cidrMatcher(ctx.config.trustedProxies);
  app.set('trust proxy', (address: string) => isTrustedProxy(address));

  const api = buildApi(ctx);
  // The hottest device POSTs are answered before Express sees them (http/device-fast-path.ts).
  // The app is the function Node's server (and supertest) calls; it enters through its
  // `handle` method (Express 5, not in its typings), so wrapping that covers every caller.
  const entry = app as unknown as { handle: ExpressEntry };
  const general = entry.handle.bind(app);
  entry.handle = (req, res, done) => {
    if (!api.fast.handle(req, res)) general(req, res, done);
  };
  // Device-key routes start with their own lean prelude (http/device-entry.ts: request id,
  // security headers, readiness gate, logging of refusals and failures); other requests fall
  // through to the general chain below.
  app.use('/api', api.device);
  // The site's files carry the nginx config's headers (http/site.ts), not helmet's API set.
  if (opts.siteRoot !== undefined) app.use(siteHandler(opts.siteRoot));

  app.use(accessLog(ctx));
  app.use(helmet());
  app.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  app.use('/api', api.early);
  const whenReady: RequestHandler = (_req, _res, next) => {
    next(ctx.db.ready ? undefined : httpErrors.databaseUnavailable());
  };
  app.use('/api', whenReady);
  app.use('/api', loadSession(ctx));
  app.use('/api', kickSyncAfterChanges(ctx));
  app.use('/api', api.router);

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return { app, api };
}
