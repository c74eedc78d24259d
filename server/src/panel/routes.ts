import { Router } from 'express';
import { panelRoute, type PanelRoute } from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp, requireAdmin } from '../auth/middleware.js';
import { jsonBody } from '../http/body.js';
import { parseWith } from '../http/errors.js';
import { SettingKey } from '../settings/runtime-settings.js';

/**
 * PROTOCOL §5 `GET`/`POST /api/panel/route`: where recognition results are shown. Seeded once
 * from PANEL_URL; after that only an administrator changes it.
 */
export function panelRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(jsonBody('8kb'));
  router.use(requireAdmin());

  const current = async (): Promise<PanelRoute> =>
    (await ctx.settings.get(SettingKey.panelRoute, panelRoute)) ?? { mode: 'local', url: '' };

  router.get('/route', async (_req, res) => {
    res.json(await current());
  });

  router.post('/route', async (req, res) => {
    const next = parseWith(panelRoute, req.body);
    const before = await current();
    await ctx.settings.set(SettingKey.panelRoute, next);
    const admin = req.auth!.admin;
    await ctx.audit.record({
      action: 'panel.route_change',
      organizationId: admin.organizationId,
      actor: { id: admin.id, name: admin.username },
      target: { type: 'setting', id: SettingKey.panelRoute },
      ip: clientIp(req),
      summary: `panel route ${before.mode} ${before.url || '(none)'} → ${next.mode} ${next.url || '(none)'}`,
    });
    res.json(next);
  });
  return router;
}
