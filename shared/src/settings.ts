import { z } from 'zod';

/** `GET /api/settings`: runtime settings and the fixed session limits, read-only. */
export const settingsOut = z.object({
  eventRetentionDays: z.number().int(),
  sessions: z.object({
    /** A session unused this long ends. */
    idleTimeoutMinutes: z.number().int(),
    /** A session ends this long after sign-in, used or not. */
    absoluteTimeoutMinutes: z.number().int(),
  }),
});
export type SettingsOut = z.infer<typeof settingsOut>;
