import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireAdmin } from '../auth/middleware.js';

/** PROTOCOL §7 `GET /api/organizations`: a superadmin sees all, others their own. */
export function organizationsRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(requireAdmin());
  router.get('/', async (req, res) => {
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
  });
  return router;
}
