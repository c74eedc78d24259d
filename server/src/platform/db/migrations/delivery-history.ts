import { addIndexOverForeignKey, col, DataTypes, type Migration, newTable } from '../migration.js';

/** 0130–0131: the failed tries of a recognition event's delivery to the panel (issue 22). */
export const deliveryHistoryMigrations: Migration[] = [
  {
    name: '0130-create-recognition-delivery-failures',
    // One row per failed try (a delivered one is the event's delivered_at); erased with its
    // event, so the retention purge takes them along. Only the newest few per event are kept.
    ...newTable('recognition_delivery_failures', {
      id: col.autoPk(),
      event_id: col.ref('recognition_events', 'CASCADE'),
      attempt: { type: DataTypes.INTEGER, allowNull: false },
      failed_at: col.time(),
      error: { type: DataTypes.STRING(512), allowNull: false },
    }),
  },
  {
    name: '0131-index-recognition-delivery-failures-event',
    // An event's tries in order (the page, the cap's trim) and the cascade from the event.
    ...addIndexOverForeignKey(
      'recognition_delivery_failures',
      'recognition_delivery_failures_event',
      ['event_id', 'attempt'],
    ),
  },
];
