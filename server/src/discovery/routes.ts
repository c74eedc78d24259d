import type { z } from 'zod';
import {
  ErrorCode,
  configureRequest,
  configureResponse,
  discoveryNodeList,
  serverTimeResponse,
  terminalCheckin,
} from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp } from '../auth/middleware.js';
import { bearerToken, type Api } from '../http/api.js';
import { HttpError } from '../http/errors.js';
import { configureTerminals } from './configure.js';

/** PROTOCOL §5 discovery endpoints and the §2 terminal check-in. */
export function registerDiscoveryRoutes(api: Api, ctx: AppContext): void {
  const tags = ['discovery'];
  api.add(
    {
      method: 'get',
      path: '/discovery/nodes',
      summary: 'Enrollment and display terminals heard within DISCOVERY_TIMEOUT',
      tags,
      access: { kind: 'session-or-trusted' },
      responses: { 200: discoveryNodeList },
    },
    async (_input, _req, res) => {
      res
        .type('application/json')
        .send(await ctx.discovery.store.onlineJson(ctx.config.discovery.timeoutS));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/discovery/configure',
      summary: 'Push the central address to terminals and read it back',
      tags,
      access: { kind: 'trusted-session', minRole: 'admin' },
      body: configureRequest,
      responses: { 200: configureResponse },
    },
    async ({ body }, req, res) => {
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

  api.add(
    {
      method: 'post',
      path: '/terminal/checkin',
      summary: 'Terminal check-in with its token (proof that it reconnected)',
      tags,
      access: { kind: 'terminal' },
      body: terminalCheckin,
      responses: { 200: serverTimeResponse },
      bodyLimit: '4kb',
    },
    async ({ body }, _req, res) => {
      if (!(await ctx.discovery.store.checkin(body.id, bearerToken(res)))) {
        throw new HttpError(401, ErrorCode.unauthorized, 'Unknown or revoked terminal token.');
      }
      res.json({ serverTime: ctx.clock.now().toISOString() } satisfies z.infer<
        typeof serverTimeResponse
      >);
    },
  );
}
