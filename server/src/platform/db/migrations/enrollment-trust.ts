import type { ModelAttributeColumnOptions } from 'sequelize';
import {
  addForeignKeyIndex,
  addIndex,
  addIndexOverForeignKey,
  col,
  DataTypes,
  type Migration,
  newTable,
} from '../migration.js';

/** A column added to `devices`, dropped natively (SQLite's removeColumn rebuilds the table). */
function deviceColumn(
  name: string,
  column: string,
  type: Pick<ModelAttributeColumnOptions, 'type'>,
): Migration {
  return {
    name,
    up: ({ qi }) => qi.addColumn('devices', column, { ...type, allowNull: true }),
    down: ({ qi }) =>
      qi.sequelize.query(`ALTER TABLE devices DROP COLUMN ${column}`).then(() => undefined),
  };
}

/** 0070–0079: enrollment rights, reviewed re-enrollments, device clocks (issue 20). */
export const enrollmentTrustMigrations: Migration[] = [
  {
    name: '0070-create-terminal-spaces',
    // The spaces an administrator lets an enrollment terminal grant; none by default. Gone with
    // the terminal's node row (its token goes with it too) or with the space.
    ...newTable('terminal_spaces', (ctx) => ({
      terminal_id: {
        // Node ids compare case-sensitively (0036: utf8mb4_bin); the key must match the column.
        type:
          ctx.dialect === 'mysql'
            ? 'VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'
            : DataTypes.STRING(64),
        primaryKey: true,
        allowNull: false,
        references: { model: 'discovered_nodes', key: 'id' },
        onDelete: 'CASCADE',
        onUpdate: 'CASCADE',
      },
      space_id: { ...col.ref('spaces', 'CASCADE'), primaryKey: true },
      created_at: col.time(),
    })),
  },
  {
    name: '0071-index-terminal-spaces-space',
    ...addForeignKeyIndex('terminal_spaces', 'terminal_spaces_space', 'space_id'),
  },
  {
    name: '0072-create-enrollment-changes',
    // A re-enrollment that would change an existing person's name or photo, held until an
    // administrator decides. Erasing the person erases their changes (and so their photos).
    ...newTable('enrollment_changes', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'CASCADE'),
      person_id: col.ref('people', 'CASCADE'),
      // No foreign key: the record outlives the terminal's node row.
      terminal_id: { type: DataTypes.STRING(64), allowNull: false },
      ip: { type: DataTypes.STRING(64), allowNull: true },
      state: { type: DataTypes.STRING(16), allowNull: false },
      old_name: { type: DataTypes.STRING(128), allowNull: false },
      new_name: { type: DataTypes.STRING(128), allowNull: false },
      old_photo_sha256: { type: DataTypes.STRING(64), allowNull: true },
      new_photo_sha256: { type: DataTypes.STRING(64), allowNull: false },
      created_at: col.time(),
      decided_at: col.time(true),
      decided_by: { type: DataTypes.STRING(64), allowNull: true },
    }),
  },
  {
    name: '0073-index-enrollment-changes-review',
    // The review list: an organization's changes in a state, oldest first.
    ...addIndexOverForeignKey('enrollment_changes', 'enrollment_changes_review', [
      'organization_id',
      'state',
      'created_at',
    ]),
  },
  {
    name: '0074-index-enrollment-changes-person',
    ...addForeignKeyIndex('enrollment_changes', 'enrollment_changes_person', 'person_id'),
  },
  {
    name: '0075-index-enrollment-changes-old-photo',
    // Photo references are looked up by value (photos/store.ts FILE_REFERENCES).
    ...addIndex('enrollment_changes', 'enrollment_changes_old_photo', ['old_photo_sha256']),
  },
  {
    name: '0076-index-enrollment-changes-new-photo',
    ...addIndex('enrollment_changes', 'enrollment_changes_new_photo', ['new_photo_sha256']),
  },
  // The device's clock against ours, as last measured (devices/clock.ts).
  deviceColumn('0077-add-devices-clock-drift', 'clock_drift_ms', { type: DataTypes.DOUBLE }),
  deviceColumn('0078-add-devices-clock-checked-at', 'clock_checked_at', {
    type: DataTypes.DATE(3),
  }),
  deviceColumn('0079-add-devices-clock-source', 'clock_source', { type: DataTypes.STRING(16) }),
];
