import { DataTypes, type Migration } from '../migration.js';

/**
 * 0270–0279: audit summaries a client can word in its own language (issue 34 item 4). A row
 * keeps its English `summary` (logs, CSV, rows written before); `summary_message` holds the same
 * as JSON `{"code", "params"}`, null on older rows. Dropped natively on the way down: Sequelize's
 * SQLite removeColumn rebuilds the table without its indexes.
 */
export const auditMessageMigrations: Migration[] = [
  {
    name: '0270-add-audit-log-summary-message',
    up: ({ qi }) =>
      qi.addColumn('audit_log', 'summary_message', { type: DataTypes.TEXT, allowNull: true }),
    down: ({ qi }) =>
      qi.sequelize.query('ALTER TABLE audit_log DROP COLUMN summary_message').then(() => undefined),
  },
];
