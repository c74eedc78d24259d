import { Op, type WhereOptions } from 'sequelize';
import type { SyncState, SyncTaskRow } from '../../db/business-models.js';

/**
 * Tasks this process has read to push and whose outcome is not written yet. The database
 * holds them `pending` (a device's lease, not a mark on each task, keeps other processes off
 * them: device-leases.ts); the API shows them `running`, and a device's next read skips them, so a
 * task the planner changes while its push is in flight is not pushed twice at once.
 */
export class InFlight {
  private readonly device = new Map<string, string>();

  add(tasks: readonly { id: string; deviceId: string }[]): void {
    for (const t of tasks) this.device.set(t.id, t.deviceId);
  }

  /** Its outcome is written, or it was given up (it is still pending then). */
  settle(id: string): void {
    this.device.delete(id);
  }

  has(id: string): boolean {
    return this.device.has(id);
  }

  /** A task's state as the API shows it: `running` while its push is in flight here. */
  shown(task: Pick<SyncTaskRow, 'id' | 'state'>): SyncState {
    return task.state === 'pending' && this.has(task.id) ? 'running' : task.state;
  }

  /** The rows whose shown state is `state` (rows `running` in the database: before 0051). */
  whereShown(state: SyncState): WhereOptions<SyncTaskRow> {
    const ids = this.ids();
    if (state === 'running') {
      return { [Op.or]: [{ state: 'running' }, { state: 'pending', id: ids }] };
    }
    if (state === 'pending' && ids.length > 0) return { state, id: { [Op.notIn]: ids } };
    return { state };
  }

  /** Of one device, or all. */
  ids(deviceId?: string): string[] {
    if (deviceId === undefined) return [...this.device.keys()];
    return [...this.device].filter(([, d]) => d === deviceId).map(([id]) => id);
  }
}
