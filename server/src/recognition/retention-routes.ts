import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, orgScope, actingOrganization } from '../platform/http/scope.js';
import { retentionDays } from './events/retention.js';
import { retentionQuery, retentionSetting } from './schemas.js';

/** GET and POST /recognition/retention: how long an organization's events are kept. */
export function registerRetentionRoutes(api: Api, ctx: AppContext): void {
  const { models } = ctx;
  const tags = ['recognition'];

  api.add(
    {
      method: 'get',
      path: '/recognition/retention',
      summary:
        'Days the organization’s recognition events and snapshots are kept (default 90); a superadmin may name another organization',
      tags,
      access: { kind: 'session' },
      query: retentionQuery,
      responses: { 200: retentionSetting },
    },
    async ({ query }, req, res) => {
      const organizationId = await retentionOrganization(ctx, req, query.organizationId);
      res.json({ days: await retentionDays(ctx, organizationId), organizationId });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/recognition/retention',
      summary:
        'Change how many days the organization’s recognition events are kept (its daily purge applies it); audited in that organization',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: retentionSetting,
      bodyLimit: '4kb',
      responses: { 200: retentionSetting },
    },
    async ({ body }, req, res) => {
      const organizationId = await retentionOrganization(ctx, req, body.organizationId);
      const before = await retentionDays(ctx, organizationId);
      await ctx.db.sequelize.transaction(async (transaction) => {
        await models.Organization.update(
          { eventRetentionDays: body.days, updatedAt: ctx.clock.now() },
          { where: { id: organizationId }, transaction },
        );
        await ctx.audit.record(
          {
            action: 'recognition.retention_change',
            ...auditActor(req),
            // The organization whose events it affects, whoever changed it.
            organizationId,
            target: { type: 'organization', id: organizationId },
            summary: `recognition retention ${before} → ${body.days} days`,
            message: { code: 'retention_changed', params: { before, days: body.days } },
          },
          transaction,
        );
      });
      res.json({ days: body.days, organizationId });
    },
  );
}

/**
 * The organization a retention read or change is about: the administrator's own, or (for a
 * superadmin only) the one named. Another organization answers 404 like a missing one.
 */
async function retentionOrganization(
  ctx: AppContext,
  req: Request,
  named: string | undefined,
): Promise<string> {
  const own = actingOrganization(req);
  if (named === undefined || named === own) return own;
  const scope = orgScope(req);
  const org = scope === null ? await ctx.models.Organization.findByPk(named) : null;
  if (!org) throw httpErrors.notFound('Organization not found.');
  return org.id;
}
