import { randomUUID } from 'node:crypto';
import { QueryTypes, type QueryInterface, type Sequelize } from 'sequelize';
import type { Clock } from '../clock.js';

/**
 * The right to one piece of work (a delivery lane, a recognition device), held by at most one
 * server process at a time until it expires: a row of a lease table (`owner`, `expires_at`,
 * `renewals`, keyed by `keyColumn`). A process that dies keeps it only until `expires_at`;
 * then another takes over. One conditional UPDATE decides every take and renewal, on both
 * dialects: the row is locked for the statement on MySQL and the database is on SQLite, so two
 * processes never both see the lease as theirs (for longer than the holder's own clock says
 * it lasts).
 */
export interface RowLease {
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

export function rowLease(
  deps: LeaseDeps,
  where: { table: string; keyColumn: string; key: string },
  {
    ttlMs,
    owner = `${process.pid}-${randomUUID().slice(0, 8)}`,
  }: { ttlMs: number; owner?: string },
): RowLease {
  const { table, keyColumn, key } = where;
  let created = false;
  const run = (sql: string, replacements: Record<string, unknown>): Promise<number> =>
    deps.sequelize.query(sql, { replacements, type: QueryTypes.BULKUPDATE });

  return {
    owner,
    async acquire() {
      if (!created) {
        // The row, once; a concurrent creator's row is just as good.
        const ignore = { ignoreDuplicates: true } as Parameters<QueryInterface['bulkInsert']>[2];
        await deps.sequelize
          .getQueryInterface()
          .bulkInsert(table, [{ [keyColumn]: key, renewals: 0 }], ignore);
        created = true;
      }
      const now = deps.clock.now();
      // `renewals` changes the row every time: MySQL reports changed rows, not matched ones,
      // and a renewal within the same millisecond would change nothing else.
      const changed = await run(
        `UPDATE ${table} SET owner = :owner, expires_at = :until, renewals = renewals + 1
         WHERE ${keyColumn} = :key AND (owner = :owner OR owner IS NULL OR expires_at <= :now)`,
        { owner, key, now, until: new Date(now.getTime() + ttlMs) },
      );
      return changed === 1;
    },
    async release() {
      await run(
        `UPDATE ${table} SET owner = NULL, expires_at = NULL, renewals = renewals + 1
         WHERE ${keyColumn} = :key AND owner = :owner`,
        { owner, key },
      );
    },
  };
}
