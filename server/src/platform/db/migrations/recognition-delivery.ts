import { addIndex, col, DataTypes, type Migration, newTable } from '../migration.js';

/** 0040–0042: panel delivery claims across processes (issue 5). */
export const deliveryMigrations: Migration[] = [
  {
    name: '0040-create-delivery-leases',
    // One row per delivery lane (today one: the panel route). The process whose lease has not
    // expired is the only one sending that lane's events, which keeps them in order.
    ...newTable('delivery_leases', {
      lane: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      owner: { type: DataTypes.STRING(64), allowNull: true },
      expires_at: col.time(true),
      // Bumped by every take and renewal, so the UPDATE always changes the row: MySQL reports
      // changed rows, not matched ones, and a renewal within the same millisecond changes nothing.
      renewals: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    }),
  },
  {
    name: '0041-index-recognition-events-delivery-order',
    // The head of the queue: pending events by event time, read in batches in that order.
    ...addIndex('recognition_events', 'recognition_events_delivery_order', [
      'delivery_state',
      'time',
      'received_at',
      'id',
    ]),
  },
];
