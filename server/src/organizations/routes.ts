import { randomUUID } from 'node:crypto';
import { Op, Sequelize } from 'sequelize';
import type { z } from 'zod';
import { idParams, organizationCreate, organizationList, organizationOut } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { OrganizationRow } from '../db/models.js';
import type { Api } from '../http/api.js';
import { httpErrors } from '../http/errors.js';
import { auditActor } from '../http/scope.js';

export { organizationOut };

/** PROTOCOL §7 `GET /api/organizations`: a superadmin sees all, others their own. */
export function registerOrganizationRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/organizations',
      summary: 'Organizations the administrator may see',
      tags: ['organizations'],
      access: { kind: 'session' },
      responses: { 200: organizationList },
    },
    async (_input, req, res) => {
      const admin = req.auth!.admin;
      const where = admin.role === 'superadmin' ? {} : { id: admin.organizationId };
      const { rows, count } = await ctx.models.Organization.findAndCountAll({
        where,
        order: [['name', 'ASC']],
      });
      res.json({ items: rows.map(toOrganizationOut), total: count });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/organizations',
      summary: 'Create an organization (superadmin)',
      tags: ['organizations'],
      access: { kind: 'session', minRole: 'superadmin' },
      body: organizationCreate,
      responses: { 201: organizationOut },
    },
    async ({ body }, req, res) => {
      await assertNameFree(ctx, body.name);
      const now = ctx.clock.now();
      const created = await ctx.db.sequelize.transaction(async (transaction) => {
        const row = await ctx.models.Organization.create(
          { id: randomUUID(), name: body.name, createdAt: now, updatedAt: now },
          { transaction },
        );
        await ctx.audit.record(
          {
            action: 'organization.create',
            target: { type: 'organization', id: row.id },
            summary: `created organization "${row.name}"`,
            ...auditActor(req),
          },
          transaction,
        );
        return row;
      });
      res.status(201).json(toOrganizationOut(created));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/organizations/:id',
      summary: 'Rename an organization (a superadmin, or an admin of that organization)',
      tags: ['organizations'],
      access: { kind: 'session' },
      params: idParams,
      body: organizationCreate,
      resource: 'organization',
      responses: { 200: organizationOut },
    },
    async ({ params, body }, req, res) => {
      const admin = req.auth!.admin;
      const row = await ctx.models.Organization.findByPk(params.id);
      // Another organization answers like a missing one (no probing of ids).
      if (!row || (admin.role !== 'superadmin' && row.id !== admin.organizationId)) {
        throw httpErrors.notFound('Organization not found.');
      }
      if (row.name !== body.name) {
        await assertNameFree(ctx, body.name, row.id);
        const previous = row.name;
        await ctx.db.sequelize.transaction(async (transaction) => {
          await row.update({ name: body.name, updatedAt: ctx.clock.now() }, { transaction });
          await ctx.audit.record(
            {
              action: 'organization.rename',
              target: { type: 'organization', id: row.id },
              summary: `renamed organization "${previous}" to "${row.name}"`,
              ...auditActor(req),
            },
            transaction,
          );
        });
      }
      res.json(toOrganizationOut(row));
    },
  );
}

function toOrganizationOut(o: OrganizationRow): z.infer<typeof organizationOut> {
  return {
    id: o.id,
    name: o.name,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Two organizations with one name (in any case) would be indistinguishable in every list. */
async function assertNameFree(ctx: AppContext, name: string, exceptId?: string): Promise<void> {
  const taken = await ctx.models.Organization.findOne({
    where: {
      [Op.and]: [
        Sequelize.where(Sequelize.fn('LOWER', Sequelize.col('name')), name.toLowerCase()),
        ...(exceptId ? [{ id: { [Op.ne]: exceptId } }] : []),
      ],
    },
  });
  if (taken) throw httpErrors.conflict(`An organization named "${taken.name}" already exists.`);
}
