import { addForeignKeyIndex, col, DataTypes, type Migration, newTable } from '../migration.js';

/** 0160–0161: handover reports kept by their SHA-256 (issue 31). */
export const acceptanceReportMigrations: Migration[] = [
  {
    name: '0160-create-acceptance-reports',
    // The digest is the key: one record per report file, whoever sends it again.
    ...newTable('acceptance_reports', (ctx) => ({
      sha256: { type: DataTypes.CHAR(64), primaryKey: true, allowNull: false },
      organization_id: col.ref('organizations', 'RESTRICT'),
      recorded_by: { type: DataTypes.STRING(64), allowNull: false },
      recorded_at: col.time(),
      title: { type: DataTypes.STRING(200), allowNull: false },
      layers: { type: DataTypes.INTEGER, allowNull: false },
      passed: { type: DataTypes.INTEGER, allowNull: false },
      // The redacted report file exactly as uploaded (a few kilobytes, at most 512 KiB).
      // MySQL's TEXT stops at 64 KiB; SQLite's has no sizes.
      report: {
        type: ctx.dialect === 'mysql' ? DataTypes.TEXT('medium') : DataTypes.TEXT,
        allowNull: false,
      },
    })),
  },
  {
    name: '0161-index-acceptance-reports-organization',
    ...addForeignKeyIndex(
      'acceptance_reports',
      'acceptance_reports_organization',
      'organization_id',
    ),
  },
];
