import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Op, QueryTypes, Transaction } from 'sequelize';
import type { AppContext } from '../context.js';
import type { SyncTaskRow } from '../db/business-models.js';
import { onlineWhere } from '../devices/service.js';

type Deps = Pick<AppContext, 'models' | 'db' | 'clock'>;

/**
 * How long a claim holds a task unless renewed (lease.ts renews it while pushes are in flight);
 * a process killed mid-push, or one that could not record, frees its tasks after this.
 */
export const LEASE_MS = 20_000;

const PROCESS_TAG = `${hostname().slice(0, 32)}:${process.pid}`;

/** A fresh claimant id: this process plus randomness, so one claim's rows can be read back. */
export function newClaimant(): string {
  return `${PROCESS_TAG}:${randomBytes(8).toString('hex')}`;
}

/**
 * Tasks whose lease ran out (their process died or hung) go back to pending, attempts
 * unchanged: nothing stays `running` after a crash.
 */
export async function recoverExpiredLeases(deps: Deps, now: Date): Promise<number> {
  const [count] = await deps.models.SyncTask.update(
    { state: 'pending', claimedBy: null, claimedUntil: null, nextAttemptAt: now, updatedAt: now },
    {
      where: {
        state: 'running',
        [Op.or]: [{ claimedUntil: null }, { claimedUntil: { [Op.lt]: now } }],
      },
    },
  );
  return count;
}

/** Online devices (heartbeat rule) with at least one due pending task. */
export async function devicesWithDueWork(
  deps: Deps,
  now: Date,
  heartbeatTimeoutS: number,
): Promise<string[]> {
  const online = await deps.models.Device.findAll({
    attributes: ['id'],
    where: onlineWhere(now, heartbeatTimeoutS),
    raw: true,
  });
  if (online.length === 0) return [];
  // One index probe per device and lane (sync_tasks_device_due), not a scan of all due rows.
  const due = (lane: string) => `EXISTS (SELECT 1 FROM sync_tasks t WHERE t.device_id = d.id
    AND t.state = 'pending' AND t.lane = '${lane}' AND t.next_attempt_at <= :now)`;
  const rows = await deps.db.sequelize.query<{ id: string }>(
    `SELECT d.id FROM devices d WHERE d.id IN (:online)
      AND (${due('priority')} OR ${due('bulk')}) ORDER BY d.id`,
    { replacements: { online: online.map((d) => d.id), now }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

// One lane's due tasks of one device, oldest first: a range of sync_tasks_device_due.
const dueIn = (lane: 'priority' | 'bulk') =>
  `SELECT id, next_attempt_at FROM sync_tasks WHERE device_id = :dev AND state = 'pending'
    AND lane = '${lane}' AND next_attempt_at <= :now ORDER BY next_attempt_at LIMIT :limit`;

/**
 * Claims up to `limit` due tasks of one device, priority lane first. Two processes never get
 * the same task: on MySQL the candidate rows are locked with SKIP LOCKED (a concurrent claimer
 * takes other rows) before they are marked; on SQLite the single UPDATE … WHERE id IN (SELECT …)
 * is atomic under the database's one writer.
 */
export async function claimTasks(
  deps: Deps,
  deviceId: string,
  limit: number,
  now: Date,
): Promise<SyncTaskRow[]> {
  const claimant = newClaimant();
  const replacements = {
    dev: deviceId,
    now,
    limit,
    claimant,
    until: new Date(now.getTime() + LEASE_MS),
  };
  const sequelize = deps.db.sequelize;
  const mark = `UPDATE sync_tasks SET state = 'running', claimed_by = :claimant,
    claimed_until = :until, updated_at = :now`;
  if (sequelize.getDialect() === 'mysql') {
    // READ COMMITTED: the locking reads take no gap locks, so two devices' claims (whose rows
    // move within the same due index when marked) cannot deadlock on each other's gaps.
    const isolationLevel = Transaction.ISOLATION_LEVELS.READ_COMMITTED;
    await sequelize.transaction({ isolationLevel }, async (transaction) => {
      const ids: string[] = [];
      for (const lane of ['priority', 'bulk'] as const) {
        if (ids.length >= limit) break;
        const rows = await sequelize.query<{ id: string }>(
          `${dueIn(lane)} FOR UPDATE SKIP LOCKED`,
          {
            replacements: { ...replacements, limit: limit - ids.length },
            type: QueryTypes.SELECT,
            transaction,
          },
        );
        ids.push(...rows.map((r) => r.id));
      }
      if (ids.length === 0) return;
      await sequelize.query(`${mark} WHERE id IN (:ids)`, {
        replacements: { ...replacements, ids },
        transaction,
      });
    });
  } else {
    // Priority lane first, then bulk, in one statement.
    await sequelize.query(
      `${mark} WHERE id IN (SELECT id FROM (
        SELECT id, 0 AS rank, next_attempt_at FROM (${dueIn('priority')})
        UNION ALL SELECT id, 1 AS rank, next_attempt_at FROM (${dueIn('bulk')})
      ) ORDER BY rank, next_attempt_at LIMIT :limit)`,
      { replacements },
    );
  }
  return deps.models.SyncTask.findAll({ where: { claimedBy: claimant, state: 'running' } });
}
