import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';

const listQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

const auditEntryOut = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string().nullable(),
  action: z.string(),
  outcome: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  ip: z.string().nullable(),
  summary: z.string(),
});

/** `GET /api/audit`: the audit log of the administrator's organization, newest first. */
export function registerAuditRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/audit',
      summary: 'Audit log, newest first',
      tags: ['audit'],
      access: { kind: 'session', minRole: 'admin' },
      query: listQuery,
      responses: { 200: z.object({ items: z.array(auditEntryOut), total: z.number().int() }) },
    },
    async ({ query }, req, res) => {
      const admin = req.auth!.admin;
      const where = admin.role === 'superadmin' ? {} : { organizationId: admin.organizationId };
      const { rows, count } = await ctx.models.Audit.findAndCountAll({
        where,
        order: [
          ['at', 'DESC'],
          ['id', 'DESC'],
        ],
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      res.json({
        items: rows.map((r) => ({
          id: String(r.id),
          at: r.at.toISOString(),
          actor: r.actorName,
          action: r.action,
          outcome: r.outcome,
          target: r.targetType ? { type: r.targetType, id: r.targetId } : null,
          ip: r.ip,
          summary: r.summary,
        })),
        total: count,
      });
    },
  );
}
