import { col, type Migration } from '../migration.js';

/**
 * 0240–0249: device clocks (issue 32). An event whose device time is further than a day from
 * the central service's receive time keeps the device's time only as reported.
 */
export const deviceClockMigrations: Migration[] = [
  {
    name: '0240-add-recognition-events-reported-time',
    // Null: the device's time was believed (it is `time`). Set: the device's time was out of
    // tolerance, `time` is the receive time and this is what the device said.
    up: ({ qi }) => qi.addColumn('recognition_events', 'reported_time', col.time(true)),
    down: ({ qi }) => qi.removeColumn('recognition_events', 'reported_time'),
  },
];
