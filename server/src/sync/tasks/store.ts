import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../platform/context.js';
import { onlineWhere } from '../../devices/service.js';
import { sqlDate } from '../../platform/db/sql-dates.js';

// The task rows' one shared read: which devices have work due now (the worker's loop, the
// periodic safety nets of planning and reconciliation).

type Deps = Pick<AppContext, 'sync'>;

/** Online devices (heartbeat rule) with at least one due pending task. */
export async function devicesWithDueWork(
  deps: Deps,
  now: Date,
  heartbeatTimeoutS: number,
): Promise<string[]> {
  const online = await deps.sync.db.models.Device.findAll({
    attributes: ['id'],
    where: onlineWhere(now, heartbeatTimeoutS),
    raw: true,
  });
  if (online.length === 0) return [];
  // One index probe per device and lane (sync_tasks_device_due), not a scan of all due rows.
  // A scalar subquery with LIMIT 1, not EXISTS: MariaDB turns EXISTS into a semi-join that
  // reads every due row of a backfill on each call.
  const due = (lane: string) => `(SELECT 1 FROM sync_tasks t WHERE t.device_id = d.id
    AND t.state = 'pending' AND t.lane = '${lane}' AND t.next_attempt_at <= :now LIMIT 1) = 1`;
  const rows = await deps.sync.db.sequelize.query<{ id: string }>(
    `SELECT d.id FROM devices d WHERE d.id IN (:online)
      AND (${due('priority')} OR ${due('bulk')}) ORDER BY d.id`,
    {
      // With its milliseconds: a bare Date loses them on MySQL, and work planned within the
      // current second would not be due until the next one.
      replacements: { online: online.map((d) => d.id), now: sqlDate(deps.sync.db.sequelize, now) },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((r) => r.id);
}
