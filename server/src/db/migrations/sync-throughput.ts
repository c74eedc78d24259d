import { addIndex, type Migration } from '../migration.js';

/**
 * 0047–0049: synchronization throughput (issue 5's benchmark). A claim asks for one device's
 * due tasks of one lane, oldest first; with only (device_id, state) every claim of 24 tasks
 * read and sorted all of the device's 100,000 pending rows.
 */
export const syncThroughputMigrations: Migration[] = [
  {
    name: '0047-index-sync-tasks-device-due',
    ...addIndex('sync_tasks', 'sync_tasks_device_due', [
      'device_id',
      'state',
      'lane',
      'next_attempt_at',
    ]),
  },
  {
    name: '0048-index-people-updated-at',
    // The planner's delta: the people changed since its last plan.
    ...addIndex('people', 'people_updated_at', ['updated_at']),
  },
];
