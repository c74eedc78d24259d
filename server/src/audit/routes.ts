import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { requireAdmin } from '../auth/middleware.js';
import { parseWith } from '../http/errors.js';

const listQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

/** `GET /api/audit`: the audit log of the administrator's organization, newest first. */
export function auditRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(requireAdmin({ minRole: 'admin' }));
  router.get('/', async (req, res) => {
    const { page, pageSize } = parseWith(listQuery, req.query);
    const admin = req.auth!.admin;
    const where = admin.role === 'superadmin' ? {} : { organizationId: admin.organizationId };
    const { rows, count } = await ctx.models.Audit.findAndCountAll({
      where,
      order: [
        ['at', 'DESC'],
        ['id', 'DESC'],
      ],
      limit: pageSize,
      offset: (page - 1) * pageSize,
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
  });
  return router;
}
