import { DataTypes, type Migration } from '../migration.js';

/** 0140–0149: the management site without traps (issue 30). */
export const siteSafetyMigrations: Migration[] = [
  {
    name: '0140-add-devices-key-refused-at',
    // Since when the device has called with a key we refuse (a rotated key not yet entered on
    // it), so the site can say why it went offline; cleared by its next accepted heartbeat.
    up: ({ qi }) =>
      qi.addColumn('devices', 'key_refused_at', { type: DataTypes.DATE(3), allowNull: true }),
    down: ({ qi }) => qi.removeColumn('devices', 'key_refused_at'),
  },
];
