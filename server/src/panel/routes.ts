import { panelRoute, panelTestResult, type PanelRoute } from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp } from '../auth/middleware.js';
import type { Api } from '../http/api.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { testPanelConnection } from './test-connection.js';

/**
 * PROTOCOL §5 `GET`/`POST /api/panel/route`: where recognition results are shown. Seeded once
 * from PANEL_URL; after that only an administrator changes it.
 */
export function registerPanelRoutes(api: Api, ctx: AppContext): void {
  const current = async (): Promise<PanelRoute> =>
    (await ctx.settings.get(SettingKey.panelRoute, panelRoute)) ?? { mode: 'local', url: '' };
  const tags = ['panel'];

  api.add(
    {
      method: 'get',
      path: '/panel/route',
      summary: 'The panel (display/receiver) route',
      tags,
      access: { kind: 'session' },
      responses: { 200: panelRoute },
    },
    async (_input, _req, res) => {
      res.json(await current());
    },
  );

  api.add(
    {
      method: 'post',
      path: '/panel/route',
      summary: 'Change the panel route',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: panelRoute,
      responses: { 200: panelRoute },
      bodyLimit: '8kb',
    },
    async ({ body }, req, res) => {
      const before = await current();
      await ctx.settings.set(SettingKey.panelRoute, body);
      const admin = req.auth!.admin;
      await ctx.audit.record({
        action: 'panel.route_change',
        organizationId: admin.organizationId,
        actor: { id: admin.id, name: admin.username },
        target: { type: 'setting', id: SettingKey.panelRoute },
        ip: clientIp(req),
        summary: `panel route ${before.mode} ${before.url || '(none)'} → ${body.mode} ${body.url || '(none)'}`,
      });
      res.json(body);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/panel/test',
      summary:
        'Send a test event to the saved panel route; answers whether the panel took it, or why not',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      responses: { 200: panelTestResult },
    },
    async (_input, _req, res) => {
      res.json(await testPanelConnection(await current(), ctx.clock.now()));
    },
  );
}
