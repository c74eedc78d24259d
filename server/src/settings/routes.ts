import { settingsOut } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { ABSOLUTE_TIMEOUT_MS, IDLE_TIMEOUT_MS } from '../auth/sessions.js';
import { retentionDays } from '../recognition/retention.js';

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
      summary: 'Runtime settings (event retention) and the session timeouts, read-only',
      tags: ['settings'],
      access: { kind: 'session' },
      responses: { 200: settingsOut },
    },
    async (_input, _req, res) => {
      res.json({
        eventRetentionDays: await retentionDays(ctx),
        sessions: {
          idleTimeoutMinutes: IDLE_TIMEOUT_MS / MINUTE_MS,
          absoluteTimeoutMinutes: ABSOLUTE_TIMEOUT_MS / MINUTE_MS,
        },
      });
    },
  );
}
