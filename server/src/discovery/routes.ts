import { z } from 'zod';
import {
  ErrorCode,
  configureRequest,
  configureResponse,
  discoveryNode,
  discoveryNodeList,
  knownTerminalList,
  nodeAddressConfirm,
  nodeId,
  serverTimeResponse,
  splitChosenAddress,
  terminalCheckin,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { clientIp } from '../auth/middleware.js';
import { bearerToken, type Api } from '../platform/http/api.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { assertMayConfigure, auditMove, configureTerminals, type Actor } from './configure.js';
import { actingOrganization, orgScope } from '../platform/http/scope.js';
import { listKnownTerminals } from './known-terminals.js';

/** PROTOCOL §5 discovery endpoints and the §2 terminal check-in. */
export function registerDiscoveryRoutes(api: Api, ctx: AppContext): void {
  registerTerminalLists(api, ctx);
  registerTerminalRemoval(api, ctx);
  registerTerminalConfiguration(api, ctx);
  registerTerminalCheckin(api, ctx);
}

const tags = ['discovery'];

/** What the LAN announces, and every terminal known. */
function registerTerminalLists(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/discovery/nodes',
      summary: 'Enrollment and display terminals heard within DISCOVERY_TIMEOUT',
      tags,
      access: { kind: 'session-or-trusted' },
      responses: { 200: discoveryNodeList },
    },
    async (_input, req, res) => {
      // A session sees the terminals its organization may act on, and unclaimed ones; the
      // technician's console on a trusted network (no session) sees what the LAN announces.
      const visibleTo = req.auth ? (orgScope(req) ?? undefined) : undefined;
      res
        .type('application/json')
        .send(await ctx.discovery.store.onlineJson(ctx.config.discovery.timeoutS, visibleTo));
    },
  );

  const known = () => ({
    store: ctx.discovery.store,
    models: ctx.models,
    clock: ctx.clock,
    timeoutS: ctx.config.discovery.timeoutS,
  });

  api.add(
    {
      method: 'get',
      path: '/discovery/terminals',
      summary:
        'Every terminal known: those heard within DISCOVERY_TIMEOUT, then those gone silent (kept until removed), with the seconds since each was heard',
      tags,
      access: { kind: 'session' },
      responses: { 200: knownTerminalList },
    },
    async (_input, req, res) => {
      res.json(await listKnownTerminals(known(), orgScope(req) ?? undefined));
    },
  );
}

/** DELETE /discovery/nodes/:id: a terminal gone silent leaves the list. */
function registerTerminalRemoval(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'delete',
      path: '/discovery/nodes/:id',
      summary:
        'Remove a terminal that went offline from the list (its token and enrollment spaces go with it); it is listed again when it announces itself',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: z.object({ id: nodeId }),
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      const scope = orgScope(req);
      const row = await ctx.models.DiscoveredNode.findByPk(params.id, {
        attributes: ['id', 'organizationId', 'lastSeen'],
      });
      // Another organization's terminal is not in this administrator's list: not found alike.
      if (!row || (scope !== null && row.organizationId !== null && row.organizationId !== scope)) {
        throw httpErrors.notFound(`No terminal ${params.id} is known.`);
      }
      const silentBefore = new Date(
        ctx.clock.now().getTime() - ctx.config.discovery.timeoutS * 1000,
      );
      const online = (await ctx.discovery.store.listOnline(ctx.config.discovery.timeoutS)).some(
        (n) => n.id === params.id,
      );
      if (online || !(await ctx.discovery.store.forget(params.id, silentBefore))) {
        throw httpErrors.conflict(
          `Terminal ${params.id} is still heard on the network; it can be removed once it has been silent for ${ctx.config.discovery.timeoutS} s.`,
          { reason: 'terminal_still_heard', id: params.id, seconds: ctx.config.discovery.timeoutS },
        );
      }
      const actor = actorOf(req);
      await ctx.audit.record({
        action: 'discovery.remove',
        organizationId: row.organizationId ?? actor.organizationId,
        actor: { id: actor.id, name: actor.name },
        target: { type: 'terminal', id: params.id },
        ip: actor.ip,
        summary: `terminal ${params.id} removed from the list (last heard ${row.lastSeen.toISOString()})`,
        message: {
          code: 'terminal_removed',
          params: { id: params.id, lastHeard: row.lastSeen.toISOString() },
        },
      });
      res.status(204).end();
    },
  );
}

/** Pushing the central address to terminals, and confirming a terminal's move. */
function registerTerminalConfiguration(api: Api, ctx: AppContext): void {
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
      const known = await ctx.models.DiscoveredNode.findByPk(params.id, {
        attributes: ['id', 'organizationId'],
      });
      if (known) await assertMayConfigure(ctx.audit, [known], actorOf(req));
      const moved = await ctx.discovery.store.confirmMove(params.id, to);
      if (!moved.ok) {
        if (moved.reason === 'unknown') {
          throw httpErrors.notFound(`No terminal ${params.id} has been heard.`);
        }
        throw httpErrors.conflict(
          `Terminal ${params.id} is not claimed from ${body.address}: it is at ${moved.node!.address}:${moved.node!.port}${moved.node!.conflict ? ` and claimed from ${moved.node!.conflict.address}:${moved.node!.conflict.port}` : ' and no other address claims it'}.`,
          {
            reason: 'terminal_not_claimed_from',
            id: params.id,
            address: body.address,
            at: `${moved.node!.address}:${moved.node!.port}`,
          },
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
}

/** POST /terminal/checkin: what a configured terminal calls. */
function registerTerminalCheckin(api: Api, ctx: AppContext): void {
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
    organizationId: actingOrganization(req),
    ip: clientIp(req),
    superadmin: admin.role === 'superadmin',
  };
}
