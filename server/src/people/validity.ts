import { validityInstant } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { siteTimeZone } from '../settings/time-zone.js';

interface Validity {
  validFrom?: string | null | undefined;
  validUntil?: string | null | undefined;
}

/**
 * A body's validity with its dates (YYYY-MM-DD) resolved in the site's time zone: "valid from"
 * the start of that day, "valid until" its last millisecond; ISO times are left as they are.
 * The one place a date becomes an instant for the API (the CSV import can call
 * `validityInstant` from @svc/shared with the same zone).
 */
export async function resolveValidity<T extends Validity>(
  ctx: Pick<AppContext, 'settings'>,
  body: T,
): Promise<T> {
  const dated = (v: string | null | undefined) => typeof v === 'string' && v.length === 10;
  if (!dated(body.validFrom) && !dated(body.validUntil)) return body;
  const { timeZone } = await siteTimeZone(ctx);
  const at = (v: string | null | undefined, edge: 'from' | 'until') =>
    typeof v === 'string' ? validityInstant(v, edge, timeZone).toISOString() : v;
  return {
    ...body,
    ...(body.validFrom !== undefined && { validFrom: at(body.validFrom, 'from') }),
    ...(body.validUntil !== undefined && { validUntil: at(body.validUntil, 'until') }),
  };
}
