import { DataTypes, type Migration } from '../migration.js';

/**
 * 0290–0299: a sync task's failure a client can word in its own language (issue 34). The task
 * keeps its English `error_message` (logs, API users, rows written before); `error_params`
 * holds the values as JSON (`detail` names the sentence), null on older rows and successes.
 * Dropped natively on the way down: Sequelize's SQLite removeColumn rebuilds the table
 * without its indexes.
 */
export const syncMessageMigrations: Migration[] = [
  {
    name: '0290-add-sync-tasks-error-params',
    up: ({ qi }) =>
      qi.addColumn('sync_tasks', 'error_params', { type: DataTypes.TEXT, allowNull: true }),
    down: ({ qi }) =>
      qi.sequelize.query('ALTER TABLE sync_tasks DROP COLUMN error_params').then(() => undefined),
  },
  {
    // A device's photo refusal as a code with the device's limits as values (JSON); rows
    // written before it are judged again when read, so they get one.
    name: '0291-add-photo-variants-problem-params',
    up: ({ qi }) =>
      qi.addColumn('photo_variants', 'problem_params', { type: DataTypes.TEXT, allowNull: true }),
    down: ({ qi }) =>
      qi.sequelize
        .query('ALTER TABLE photo_variants DROP COLUMN problem_params')
        .then(() => undefined),
  },
];
