import { addIndex, col, DataTypes, type Migration, newTable } from '../migration.js';

const DEVICE_STATE = 'sync_tasks_device_state';
const DUE = 'sync_tasks_due';

/**
 * 0047–0049: synchronization throughput (issue 5's benchmark). A claim asks for one device's
 * due tasks of one lane, oldest first; with only (device_id, state) every claim of 24 tasks
 * read and sorted all of the device's 100,000 pending rows. 0049: that index leads with
 * (device_id, state) too, so the older one only cost writes: every task changes state twice
 * (claimed, written), each a delete and an insert in every index that holds the state.
 * 0051: devices are claimed instead of tasks (sync/delivery/device-leases.ts): a task is read by the
 * process that holds its device and written once, when its outcome is known.
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
  {
    name: '0049-drop-index-sync-tasks-device-state',
    // MySQL lets the device_id foreign key use sync_tasks_device_due from now on.
    up: ({ qi }) => qi.removeIndex('sync_tasks', DEVICE_STATE),
    down: ({ qi }) => qi.addIndex('sync_tasks', ['device_id', 'state'], { name: DEVICE_STATE }),
  },
  {
    name: '0050-drop-index-sync-tasks-due',
    up: ({ qi }) => qi.removeIndex('sync_tasks', DUE),
    down: ({ qi }) =>
      qi.addIndex('sync_tasks', ['state', 'lane', 'next_attempt_at'], { name: DUE }),
  },
  {
    name: '0051-create-sync-device-leases',
    // A row per device once a process has pushed to it; which process does, and until when
    // (the columns of delivery_leases: db/row-lease.ts serves both).
    ...newTable('sync_device_leases', {
      device_id: { ...col.ref('devices', 'CASCADE'), primaryKey: true },
      owner: { type: DataTypes.STRING(64), allowNull: true },
      expires_at: col.time(true),
      renewals: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
    }),
  },
];
