import { rowLease, type LeaseDeps, type RowLease } from '../../platform/db/row-lease.js';

/**
 * The right to send one delivery lane's events, held by at most one server process at a time
 * until it expires (a row of `delivery_leases`: db/row-lease.ts).
 */
export type LaneLease = RowLease;

export const DELIVERY_LEASE_MS = 30_000;

export function laneLease(
  deps: LeaseDeps,
  lane: string,
  opts: { ttlMs?: number; owner?: string } = {},
): LaneLease {
  return rowLease(
    deps,
    { table: 'delivery_leases', keyColumn: 'lane', key: lane },
    { ttlMs: opts.ttlMs ?? DELIVERY_LEASE_MS, ...(opts.owner && { owner: opts.owner }) },
  );
}
