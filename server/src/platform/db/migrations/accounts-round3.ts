import { col, DataTypes, type Migration, newTable } from '../migration.js';

/**
 * 0190–0199: organizations and administrators' accounts (issue 32). Event retention is each
 * organization's own; administrators may sign in with a second factor (TOTP) and recovery codes.
 */
export const accountsRound3Migrations: Migration[] = [
  {
    name: '0190-add-organizations-event-retention-days',
    // Null: the organization never chose, so the default (or the old global setting) applies.
    up: ({ qi }) =>
      qi.addColumn('organizations', 'event_retention_days', {
        type: DataTypes.INTEGER,
        allowNull: true,
      }),
    down: ({ qi }) => qi.removeColumn('organizations', 'event_retention_days'),
  },
  {
    name: '0191-create-administrator-totp',
    // One row per administrator who began or finished enrolling a TOTP authenticator. The
    // secret is sealed with the data volume's secret (never usable from a dump alone);
    // `last_step` is the newest time step accepted, so a code is never accepted twice.
    ...newTable('administrator_totp', {
      administrator_id: {
        ...col.ref('administrators', 'CASCADE'),
        primaryKey: true,
      },
      secret_sealed: { type: DataTypes.STRING(255), allowNull: false },
      enabled_at: col.time(true),
      last_step: { type: DataTypes.BIGINT, allowNull: true },
      created_at: col.time(),
    }),
  },
  {
    name: '0192-create-administrator-recovery-codes',
    // Ten one-time codes per enrolment, kept as SHA-256 of a random code (high entropy, so a
    // fast hash suffices); `used_at` set once, by a conditional update.
    ...newTable('administrator_recovery_codes', {
      id: col.autoPk(),
      administrator_id: col.ref('administrators', 'CASCADE'),
      code_hash: { type: DataTypes.STRING(64), allowNull: false },
      used_at: col.time(true),
      created_at: col.time(),
    }),
  },
];
