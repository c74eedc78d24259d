import { canonicalTimeZone, type TimeZoneOut } from '@svc/shared';
import { z } from 'zod';
import type { AppContext } from '../platform/context.js';
import { SettingKey } from './runtime-settings.js';

/** The server process's own zone (TZ, else the system's), the site's default. */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** How long a replica may show a zone another replica has changed. */
const ZONE_READ_MAX_AGE_MS = 30_000;

/**
 * The site's time zone: the one a superadmin chose, else the server's. Every session read
 * (GET /api/auth/me) gives it, so it comes from a short-lived cache, not a query each time.
 */
export async function siteTimeZone(ctx: Pick<AppContext, 'settings'>): Promise<TimeZoneOut> {
  const saved = await ctx.settings.cached(SettingKey.timeZone, z.string(), ZONE_READ_MAX_AGE_MS);
  // A zone this runtime no longer knows (an older tz database) falls back to the server's.
  const chosen = saved === undefined ? null : canonicalTimeZone(saved);
  const server = serverTimeZone();
  return { timeZone: chosen ?? server, serverTimeZone: server, chosen: chosen !== null };
}
