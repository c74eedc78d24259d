import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';

export const organizationOut = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** PROTOCOL §7 `GET /api/organizations`: a superadmin sees all, others their own. */
export function registerOrganizationRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/organizations',
      summary: 'Organizations the administrator may see',
      tags: ['organizations'],
      access: { kind: 'session' },
      responses: { 200: z.object({ items: z.array(organizationOut), total: z.number().int() }) },
    },
    async (_input, req, res) => {
      const admin = req.auth!.admin;
      const where = admin.role === 'superadmin' ? {} : { id: admin.organizationId };
      const { rows, count } = await ctx.models.Organization.findAndCountAll({
        where,
        order: [['name', 'ASC']],
      });
      res.json({
        items: rows.map((o) => ({
          id: o.id,
          name: o.name,
          createdAt: o.createdAt.toISOString(),
          updatedAt: o.updatedAt.toISOString(),
        })),
        total: count,
      });
    },
  );
}
