import { DataTypes, type Migration, newTable } from '../migration.js';

/**
 * 0080–0089: trust at the edges (issue 20). Sign-in attempts are recorded before the password
 * is checked, under a per-key guard row, and counted per device cookie for clients that hold
 * one (auth/lockout/).
 */
export const authHardeningMigrations: Migration[] = [
  {
    name: '0080-add-login-failures-username',
    // The username an attempt named, whatever its scope: a device cookie's or an address's
    // failures are listed and cleared by the account they aimed at.
    up: ({ qi }) =>
      qi.addColumn('login_failures', 'username', { type: DataTypes.STRING(64), allowNull: true }),
    down: ({ qi }) => qi.removeColumn('login_failures', 'username'),
  },
  {
    name: '0081-create-login-guards',
    // One row per counted key (a username, an address, a device cookie): an attempt locks its
    // rows while it counts and records itself, so parallel attempts are counted one by one.
    ...newTable('login_guards', {
      scope: { type: DataTypes.STRING(8), allowNull: false, primaryKey: true },
      key: { type: DataTypes.STRING(128), allowNull: false, primaryKey: true },
      uses: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      used_at: { type: DataTypes.DATE(3), allowNull: true },
    }),
  },
];
