import type { SessionUser } from '@svc/shared';
import type { AdministratorRow, SessionRow } from '../platform/db/models.js';
import type { AppContext } from '../platform/context.js';
import { siteTimeZone } from '../settings/time-zone.js';
import { toSessionUser } from './accounts.js';

/** The session's user with its two-factor state (the site leads an unenrolled one to it). */
export async function sessionUserOf(
  ctx: AppContext,
  admin: AdministratorRow,
  session?: SessionRow,
  /** Known when the session was read with it (every session request); read otherwise. */
  twoFactorEnabled?: boolean,
): Promise<SessionUser> {
  const enabled = twoFactorEnabled ?? (await ctx.twoFactor.enabled(admin.id));
  return {
    ...toSessionUser(admin),
    ...(admin.role === 'superadmin' && {
      workingOrganizationId: session?.organizationId ?? null,
    }),
    twoFactorEnabled: enabled,
    twoFactorEnrolmentRequired: !enabled && (await ctx.twoFactor.required()),
    timeZone: (await siteTimeZone(ctx)).timeZone,
  };
}
