import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { AppContext } from './context.js';
import { cidrMatcher } from './http/net.js';
import { errorHandler, httpErrors, notFoundHandler } from './http/errors.js';
import { heartbeatRouter } from './heartbeat/routes.js';
import { authRouter } from './auth/routes.js';
import { loadSession, requireCsrf } from './auth/middleware.js';
import { organizationsRouter } from './organizations/routes.js';
import { auditRouter } from './audit/routes.js';
import { discoveryRouter, terminalRouter } from './discovery/routes.js';
import { panelRouter } from './panel/routes.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export type MountedRouter = { path: string; router: (ctx: AppContext) => express.Router };

/**
 * Routers behind the session loader and the CSRF check (state changes that carry the session
 * cookie). Each states who may use it in its own first middleware.
 */
export const sessionRouters: MountedRouter[] = [
  { path: '/api/organizations', router: organizationsRouter },
  { path: '/api/audit', router: auditRouter },
  { path: '/api/discovery', router: discoveryRouter },
  { path: '/api/panel', router: panelRouter },
];

/** Routers authenticated by a bearer credential (terminals, devices): no session, no CSRF. */
export const bearerRouters: MountedRouter[] = [{ path: '/api/terminal', router: terminalRouter }];

export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are never cached (no-store); hashing large bodies for an ETag would be waste.
  app.set('etag', false);
  // Only the configured proxies (svc_web) may speak for the client's address and scheme.
  const isTrustedProxy = cidrMatcher(ctx.config.trustedProxies);
  app.set('trust proxy', (address: string) => isTrustedProxy(address));

  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Query strings may hold names and ID numbers: log the path only.
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: req.url.split('?')[0],
        }),
      },
      customLogLevel: (req, res, err) =>
        err || res.statusCode >= 500
          ? 'error'
          : req.url?.startsWith('/api/heartbeat')
            ? 'debug'
            : 'info',
    }),
  );
  app.use(helmet());
  app.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  app.use('/api/heartbeat', heartbeatRouter(ctx));

  const whenReady: RequestHandler = (_req, _res, next) => {
    next(ctx.db.ready ? undefined : httpErrors.databaseUnavailable());
  };
  app.use('/api', whenReady);
  for (const { path, router } of bearerRouters) app.use(path, router(ctx));
  app.use('/api', loadSession(ctx));
  app.use('/api/auth', authRouter(ctx));
  for (const { path, router } of sessionRouters) {
    app.use(path, requireCsrf(ctx), router(ctx));
  }

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return app;
}
