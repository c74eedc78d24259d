import { z } from 'zod';
import { ruleText } from './messages.js';

/** An IANA time zone the runtime knows ("Asia/Shanghai", "UTC"), as Intl spells it. */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z0-9_+\-/:]{1,64}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const timeZoneName = z
  .string()
  .refine((name) => canonicalTimeZone(name) !== null, ruleText('time_zone'));

/**
 * `PUT /api/settings/time-zone`: the zone every time on the site is shown in; null goes back
 * to the server's own.
 */
export const timeZoneSetting = z.object({ timeZone: timeZoneName.nullable() });
export type TimeZoneSetting = z.infer<typeof timeZoneSetting>;

export const timeZoneOut = z.object({
  /** The zone times are shown in: the one chosen, else the server's. */
  timeZone: z.string(),
  /** The server process's own zone (the default). */
  serverTimeZone: z.string(),
  /** Whether a zone was chosen (false: the server's is used). */
  chosen: z.boolean(),
});
export type TimeZoneOut = z.infer<typeof timeZoneOut>;

/** `GET /api/settings`: runtime settings and the fixed session limits, read-only. */
export const settingsOut = z.object({
  eventRetentionDays: z.number().int(),
  timeZone: timeZoneOut,
  sessions: z.object({
    /** A session unused this long ends. */
    idleTimeoutMinutes: z.number().int(),
    /** A session ends this long after sign-in, used or not. */
    absoluteTimeoutMinutes: z.number().int(),
  }),
});
export type SettingsOut = z.infer<typeof settingsOut>;
