import { panelRoute, panelTestResult, type PanelRoute } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { clientIp } from '../auth/middleware.js';
import type { Access, Api } from '../platform/http/api.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { testPanelConnection } from './connection-check.js';
import { actingOrganization } from '../platform/http/scope.js';

/**
 * One route for the whole installation, whichever organization a device belongs to: an
 * organization's administrator could otherwise read it and send every organization's
 * recognitions elsewhere (docs/decisions/2026-11-28-panel-route-superadmin.md).
 */
const SUPERADMIN_ONLY: Access = {
  kind: 'session',
  minRole: 'superadmin',
  denied: {
    reason: 'panel_route_superadmin_only',
    message:
      'Only a super administrator can see or change the panel route: it is shared by every organization.',
  },
};

/**
 * PROTOCOL §5 `GET`/`POST /api/panel/route`: where recognition results are shown. Seeded once
 * from PANEL_URL; after that only a super administrator reads, changes or tests it.
 */
export function registerPanelRoutes(api: Api, ctx: AppContext): void {
  registerPanelRoute(api, ctx);
  registerPanelTest(api, ctx);
}

const tags = ['panel'];

/** The saved route, or none (local) before one is set. */
const currentRoute = async (ctx: AppContext): Promise<PanelRoute> =>
  (await ctx.settings.get(SettingKey.panelRoute, panelRoute)) ?? { mode: 'local', url: '' };

/** GET and POST /panel/route: reading and changing it. */
function registerPanelRoute(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/panel/route',
      summary: 'The panel (display/receiver) route',
      tags,
      access: SUPERADMIN_ONLY,
      responses: { 200: panelRoute },
    },
    async (_input, _req, res) => {
      res.json(await currentRoute(ctx));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/panel/route',
      summary: 'Change the panel route',
      tags,
      access: SUPERADMIN_ONLY,
      body: panelRoute,
      responses: { 200: panelRoute },
      bodyLimit: '8kb',
    },
    async ({ body }, req, res) => {
      const before = await currentRoute(ctx);
      await ctx.settings.set(SettingKey.panelRoute, body);
      const admin = req.auth!.admin;
      await ctx.audit.record({
        action: 'panel.route_change',
        organizationId: actingOrganization(req),
        actor: { id: admin.id, name: admin.username },
        target: { type: 'setting', id: SettingKey.panelRoute },
        ip: clientIp(req),
        summary: `panel route ${before.mode} ${before.url || '(none)'} → ${body.mode} ${body.url || '(none)'}`,
        message: {
          code: 'panel_route_changed',
          params: { beforeMode: before.mode, before: before.url, mode: body.mode, url: body.url },
        },
      });
      res.json(body);
    },
  );
}

/** POST /panel/test: a test event sent along the saved route. */
function registerPanelTest(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/panel/test',
      summary:
        'Send a test event to the saved panel route; answers whether the panel took it, or why not',
      tags,
      access: SUPERADMIN_ONLY,
      responses: { 200: panelTestResult },
    },
    async (_input, req, res) => {
      const result = await testPanelConnection(await currentRoute(ctx), ctx.clock.now());
      const admin = req.auth!.admin;
      // Kept so the first-session checklist (and an auditor) can tell the route was tried.
      await ctx.audit.record({
        action: 'panel.test',
        outcome: result.ok ? 'success' : 'failure',
        organizationId: actingOrganization(req),
        actor: { id: admin.id, name: admin.username },
        target: { type: 'setting', id: SettingKey.panelRoute },
        ip: clientIp(req),
        summary: result.ok
          ? `panel route test to ${result.url}: answered in ${result.ms} ms`
          : `panel route test to ${result.url || '(none)'}: ${result.reason}`,
        // A refusal's reason is the transport's own (an HTTP status, a network error code).
        message: result.ok
          ? { code: 'panel_tested', params: { url: result.url, ms: result.ms } }
          : result.url === ''
            ? { code: 'panel_test_no_url', params: {} }
            : { code: 'panel_test_failed', params: { url: result.url, reason: result.reason } },
      });
      res.json(result);
    },
  );
}
