import { Router } from 'express';
import { configureRequest, ErrorCode, terminalCheckin } from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp, requireAdmin } from '../auth/middleware.js';
import { jsonBody } from '../http/body.js';
import { HttpError, parseWith } from '../http/errors.js';
import { requireTrustedNetwork, sessionOrTrustedNetwork } from '../http/trusted.js';
import { configureTerminals } from './configure.js';

/** PROTOCOL §5: `GET /api/discovery/nodes`, `POST /api/discovery/configure`. */
export function discoveryRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(jsonBody('64kb'));

  router.get('/nodes', sessionOrTrustedNetwork(ctx), async (_req, res) => {
    res
      .type('application/json')
      .send(await ctx.discovery.store.onlineJson(ctx.config.discovery.timeoutS));
  });

  router.post(
    '/configure',
    requireTrustedNetwork(ctx),
    requireAdmin({ minRole: 'admin' }),
    async (req, res) => {
      const body = parseWith(configureRequest, req.body);
      const admin = req.auth!.admin;
      const results = await configureTerminals(
        {
          store: ctx.discovery.store,
          client: ctx.discovery.client,
          host: ctx.discovery.host,
          audit: ctx.audit,
          config: { ...ctx.config.discovery, webPort: ctx.config.webPort },
        },
        body,
        {
          id: admin.id,
          name: admin.username,
          organizationId: admin.organizationId,
          ip: clientIp(req),
        },
      );
      res.json({ results });
    },
  );
  return router;
}

/** PROTOCOL §2 check-in: the terminal proves it reconnected with the token it was given. */
export function terminalRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(jsonBody('4kb'));
  router.post('/checkin', async (req, res) => {
    const auth = req.headers.authorization ?? '';
    const token = /^Bearer ([A-Za-z0-9._~+/=-]{16,256})$/.exec(auth)?.[1];
    if (!token) {
      throw new HttpError(
        401,
        ErrorCode.unauthorized,
        'Send the terminal token as Authorization: Bearer <token>.',
      );
    }
    const body = parseWith(terminalCheckin, req.body);
    if (!(await ctx.discovery.store.checkin(body.id, token))) {
      throw new HttpError(401, ErrorCode.unauthorized, 'Unknown or revoked terminal token.');
    }
    res.json({ serverTime: ctx.clock.now().toISOString() });
  });
  return router;
}
