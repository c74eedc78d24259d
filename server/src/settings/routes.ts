import { canonicalTimeZone, settingsOut, timeZoneOut, timeZoneSetting } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { ABSOLUTE_TIMEOUT_MS, IDLE_TIMEOUT_MS } from '../auth/sessions.js';
import { retentionDays } from '../recognition/events/retention.js';
import { actingOrganization } from '../platform/http/scope.js';
import { clientIp } from '../auth/middleware.js';
import { SettingKey } from './runtime-settings.js';
import { siteTimeZone } from './time-zone.js';

const MINUTE_MS = 60_000;

/**
 * The settings page's one read: runtime settings with their defaults applied, and the session
 * limits (fixed in the code, shown so nobody has to guess why they were signed out). Each
 * runtime setting is changed through its own feature's route (e.g. `/recognition/retention`).
 */
export function registerSettingsRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/settings',
      summary:
        'Runtime settings (the organization’s event retention, the site’s time zone) and the session timeouts, read-only',
      tags: ['settings'],
      access: { kind: 'session' },
      responses: { 200: settingsOut },
    },
    async (_input, req, res) => {
      res.json({
        eventRetentionDays: await retentionDays(ctx, actingOrganization(req)),
        timeZone: await siteTimeZone(ctx),
        sessions: {
          idleTimeoutMinutes: IDLE_TIMEOUT_MS / MINUTE_MS,
          absoluteTimeoutMinutes: ABSOLUTE_TIMEOUT_MS / MINUTE_MS,
        },
      });
    },
  );

  api.add(
    {
      method: 'put',
      path: '/settings/time-zone',
      summary:
        'The time zone every time on the site is shown in, for all organizations (null: the server’s own)',
      tags: ['settings'],
      access: { kind: 'session', minRole: 'superadmin' },
      body: timeZoneSetting,
      responses: { 200: timeZoneOut },
      bodyLimit: '1kb',
    },
    async ({ body }, req, res) => {
      const before = await siteTimeZone(ctx);
      const zone = body.timeZone === null ? null : canonicalTimeZone(body.timeZone);
      if (zone === null) await ctx.settings.remove(SettingKey.timeZone);
      else await ctx.settings.set(SettingKey.timeZone, zone);
      const after = await siteTimeZone(ctx);
      const admin = req.auth!.admin;
      await ctx.audit.record({
        action: 'settings.time_zone_change',
        organizationId: actingOrganization(req),
        actor: { id: admin.id, name: admin.username },
        target: { type: 'setting', id: SettingKey.timeZone },
        ip: clientIp(req),
        summary: `site time zone ${before.timeZone} → ${after.timeZone}${after.chosen ? '' : ' (the server’s)'}`,
        message: {
          code: 'time_zone_changed',
          params: { before: before.timeZone, after: after.timeZone, chosen: String(after.chosen) },
        },
      });
      res.json(after);
    },
  );
}
