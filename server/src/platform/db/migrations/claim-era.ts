import { QueryTypes, type DataType } from 'sequelize';
import { DataTypes, type Migration } from '../migration.js';
import { sqlDate } from '../sql-dates.js';

/**
 * 0260–0269: the end of the claim era (issue 36). Before 0051 a worker marked each task it
 * pushed `running` with `claimed_by` and `claimed_until`; since then a device is held instead
 * (sync_device_leases) and tasks stay `pending` until their outcome is written. A site last run
 * by a build before 0051 may still hold tasks left `running` by a process that stopped: 0260
 * puts them back (due at once, attempts unchanged), what every worker pass used to look for.
 * Then the columns go. Dropped natively: Sequelize's SQLite removeColumn rebuilds the table
 * without its indexes.
 */
const dropColumn = (column: string, type: DataType): Omit<Migration, 'name'> => ({
  up: ({ qi }) =>
    qi.sequelize.query(`ALTER TABLE sync_tasks DROP COLUMN ${column}`).then(() => undefined),
  down: ({ qi }) => qi.addColumn('sync_tasks', column, { type, allowNull: true }),
});

export const claimEraMigrations: Migration[] = [
  {
    name: '0260-requeue-claimed-sync-tasks',
    up: async ({ qi }) => {
      const now = sqlDate(qi.sequelize, new Date());
      await qi.sequelize.query(
        `UPDATE sync_tasks SET state = 'pending', claimed_by = NULL, claimed_until = NULL,
           next_attempt_at = :now, updated_at = :now WHERE state = 'running'`,
        { replacements: { now }, type: QueryTypes.UPDATE },
      );
    },
    // Nothing to undo: a pending task is what a running one of a stopped process becomes.
    down: () => Promise.resolve(),
  },
  { name: '0261-drop-sync-tasks-claimed-by', ...dropColumn('claimed_by', DataTypes.STRING(64)) },
  { name: '0262-drop-sync-tasks-claimed-until', ...dropColumn('claimed_until', DataTypes.DATE(3)) },
];
