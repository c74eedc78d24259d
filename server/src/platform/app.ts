import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import type { AppContext } from './context.js';
import { cidrMatcher } from './http/net.js';
import { errorHandler, httpErrors, notFoundHandler } from './http/errors.js';
import { loadSession } from '../auth/middleware.js';
import { buildApi } from '../routes.js';
import type { Api } from './http/api.js';
import { accessLog } from './http/access-log.js';
import { helmetHeaders } from './http/device-entry.js';
import { kickSyncAfterChanges } from '../sync/worker/kick-after-changes.js';
import { siteHandler } from './http/site.js';
import { series } from './http/series.js';

export interface AppOptions {
  /** The built management site (`web/dist`) served at `/`; none: the API only. */
  siteRoot?: string;
}

export interface App {
  app: Express;
  api: Api;
  /**
   * What the HTTP server calls for each request: the hottest device POSTs are answered here
   * before Express sees them (http/device-fast-path.ts); everything else goes to `app`.
   */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
}

export function createApp(ctx: AppContext, opts: AppOptions = {}): App {
  const app = express();
  app.disable('x-powered-by');
  // API answers are never cached (no-store); hashing large bodies for an ETag would be waste.
  app.set('etag', false);
  // Only the configured proxies (svc_web) may speak for the client's address and scheme.
  const isTrustedProxy = cidrMatcher(ctx.config.trustedProxies);
  app.set('trust proxy', (address: string) => isTrustedProxy(address));

  const api = buildApi(ctx);
  // The heartbeat (routes served without the database) comes first, and it and the device-key
  // routes start with their own lean prelude (http/device-entry.ts: request id, security
  // headers, the readiness gate for device routes, logging of refusals and failures): monitoring
  // polls the heartbeat, and the general chain cost several times its answer. Other requests
  // fall through to the general chain below.
  app.use('/api', api.early);
  app.use('/api', api.device);
  // The site's files carry the nginx config's headers (http/site.ts), not helmet's API set.
  if (opts.siteRoot !== undefined) app.use(siteHandler(opts.siteRoot));

  // The general chain's steps: one layer for every path and one for the API (series.ts), not a
  // layer per step; the router stays a layer of its own (the route-table test walks it).
  // helmet's headers do not depend on the request: computed once, not by its functions per call.
  const security = helmetHeaders();
  app.use(
    series(accessLog(ctx), (_req, res, next) => {
      for (const [name, value] of security) res.setHeader(name, value);
      next();
    }),
  );
  app.use(
    '/api',
    series(
      (_req, res, next) => {
        // API answers are never cached; and none is served before the database is ready.
        res.setHeader('Cache-Control', 'no-store');
        next(ctx.db.ready ? undefined : httpErrors.databaseUnavailable());
      },
      loadSession(ctx),
      kickSyncAfterChanges(ctx),
    ),
  );
  app.use('/api', api.router);

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!api.fast.handle(req, res)) app(req, res);
  };
  return { app, api, listener };
}
