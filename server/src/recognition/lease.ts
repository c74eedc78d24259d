import { randomUUID } from 'node:crypto';
import { QueryTypes, type QueryInterface, type Sequelize } from 'sequelize';
import type { Clock } from '../clock.js';

/**
 * The right to send one delivery lane's events, held by at most one server process at a time
 * until it expires. A process that dies keeps it only until `expires_at`; then another takes
 * over. One conditional UPDATE decides every take and renewal, on both dialects: the row is
 * locked for the statement on MySQL and the database is on SQLite, so two processes never both
 * see the lease as theirs (for longer than the holder's own clock says it lasts).
 */
export interface LaneLease {
  /** Takes or renews the lease until now + ttl; false while another process holds it. */
  acquire(): Promise<boolean>;
  /** Gives it up at once (only if still ours), so another process need not wait for expiry. */
  release(): Promise<void>;
  readonly owner: string;
}

export interface LeaseDeps {
  sequelize: Sequelize;
  clock: Clock;
}

export const DELIVERY_LEASE_MS = 30_000;

export function laneLease(
  deps: LeaseDeps,
  lane: string,
  opts: { ttlMs?: number; owner?: string } = {},
): LaneLease {
  const ttlMs = opts.ttlMs ?? DELIVERY_LEASE_MS;
  const owner = opts.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  let created = false;
  const run = (sql: string, replacements: Record<string, unknown>): Promise<number> =>
    deps.sequelize.query(sql, { replacements, type: QueryTypes.BULKUPDATE });

  return {
    owner,
    async acquire() {
      if (!created) {
        // The lane's row, once; a concurrent creator's row is just as good.
        const ignore = { ignoreDuplicates: true } as Parameters<QueryInterface['bulkInsert']>[2];
        await deps.sequelize
          .getQueryInterface()
          .bulkInsert('delivery_leases', [{ lane, renewals: 0 }], ignore);
        created = true;
      }
      const now = deps.clock.now();
      const changed = await run(
        `UPDATE delivery_leases SET owner = :owner, expires_at = :until, renewals = renewals + 1
         WHERE lane = :lane AND (owner = :owner OR owner IS NULL OR expires_at <= :now)`,
        { owner, lane, now, until: new Date(now.getTime() + ttlMs) },
      );
      return changed === 1;
    },
    async release() {
      await run(
        `UPDATE delivery_leases SET owner = NULL, expires_at = NULL, renewals = renewals + 1
         WHERE lane = :lane AND owner = :owner`,
        { owner, lane },
      );
    },
  };
}
