import { z } from 'zod';
import {
  ErrorCode,
  configureRequest,
  configureResponse,
  discoveryNode,
  discoveryNodeList,
  nodeAddressConfirm,
  nodeId,
  serverTimeResponse,
  splitChosenAddress,
  terminalCheckin,
} from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp } from '../auth/middleware.js';
import { bearerToken, type Api } from '../http/api.js';
import { HttpError, httpErrors } from '../http/errors.js';
import { auditMove, configureTerminals, type Actor } from './configure.js';

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
      const results = await configureTerminals(
        {
          store: ctx.discovery.store,
          client: ctx.discovery.client,
          host: ctx.discovery.host,
          audit: ctx.audit,
          clock: ctx.clock,
          config: { ...ctx.config.discovery, webPort: ctx.config.webPort },
        },
        body,
        actorOf(req),
      );
      res.json({ results });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/discovery/nodes/:id/address',
      summary:
        'Confirm that a terminal moved to the address that claims its id: it is accepted there at once (configure it again for a token that works there)',
      tags,
      access: { kind: 'trusted-session', minRole: 'admin' },
      params: z.object({ id: nodeId }),
      body: nodeAddressConfirm,
      responses: { 200: discoveryNode },
    },
    async ({ params, body }, req, res) => {
      const to = splitChosenAddress(body.address);
      const moved = await ctx.discovery.store.confirmMove(params.id, to);
      if (!moved.ok) {
        if (moved.reason === 'unknown') {
          throw httpErrors.notFound(`No terminal ${params.id} has been heard.`);
        }
        throw httpErrors.conflict(
          `Terminal ${params.id} is not claimed from ${body.address}: it is at ${moved.node!.address}:${moved.node!.port}${moved.node!.conflict ? ` and claimed from ${moved.node!.conflict.address}:${moved.node!.conflict.port}` : ' and no other address claims it'}.`,
        );
      }
      await auditMove(ctx.audit, params.id, moved.from, moved.node, actorOf(req));
      const node = (await ctx.discovery.store.listOnline(ctx.config.discovery.timeoutS)).find(
        (n) => n.id === params.id,
      );
      if (!node) throw httpErrors.notFound(`Terminal ${params.id} is no longer online.`);
      res.json(node);
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
    async ({ body }, req, res) => {
      if (!(await ctx.discovery.store.checkin(body.id, bearerToken(res), clientIp(req)))) {
        throw new HttpError(
          401,
          ErrorCode.unauthorized,
          'Unknown or revoked terminal token, or not used from the address it was given to.',
        );
      }
      res.json({ serverTime: ctx.clock.now().toISOString() } satisfies z.infer<
        typeof serverTimeResponse
      >);
    },
  );
}

function actorOf(req: Parameters<typeof clientIp>[0]): Actor {
  const admin = req.auth!.admin;
  return {
    id: admin.id,
    name: admin.username,
    organizationId: admin.organizationId,
    ip: clientIp(req),
  };
}
