import { Op, type WhereOptions } from 'sequelize';
import type { SyncState, SyncTaskRow } from '../../platform/db/business-models.js';

/**
 * Tasks this process has read to push and whose outcome is not written yet. The database
 * holds them `pending` (a device's lease, not a mark on each task, keeps other processes off
 * them: device-leases.ts); the API shows them `running`, and a device's next read skips them, so a
 * task the planner changes while its push is in flight is not pushed twice at once.
 */
export class InFlight {
  private readonly device = new Map<string, string>();
  /** Settles counted, so a read can tell which tasks were settled while it ran. */
  private settles = 0;
  /** Task id → the settle count when it was settled, kept only while a read is open. */
  private readonly settledAt = new Map<string, number>();
  /** Open reads: the settle count each started at → how many started there. */
  private readonly openReads = new Map<number, number>();

  add(tasks: readonly { id: string; deviceId: string }[]): void {
    for (const t of tasks) this.device.set(t.id, t.deviceId);
  }

  /** Its outcome is written, or it was given up (it is still pending then). */
  settle(id: string): void {
    this.device.delete(id);
    if (this.openReads.size === 0) return;
    // Deleted first: the map stays in settle order, so forgetting stops at the first one kept.
    this.settledAt.delete(id);
    this.settledAt.set(id, ++this.settles);
  }

  /**
   * Reads due tasks with `read`, leaving out those in flight and those settled while the read
   * ran. A row read before a task's outcome committed still shows it pending; if the outcome
   * is written (and the task settled) before the row comes back, it is no longer in flight,
   * and would be pushed again at a version the device just took. Such a task, if really still
   * due (requeued), is read again by the device's next read or stream.
   */
  async readFresh<T extends { id: string; deviceId: string }>(
    read: (skip: (id: string) => boolean) => Promise<T[]>,
  ): Promise<T[]> {
    const from = this.settles;
    this.openReads.set(from, (this.openReads.get(from) ?? 0) + 1);
    try {
      const skip = (id: string) => this.has(id) || (this.settledAt.get(id) ?? 0) > from;
      const fresh = (await read(skip)).filter((t) => !skip(t.id));
      // Taken before anything else runs: two overlapping reads of one device take a task once.
      this.add(fresh);
      return fresh;
    } finally {
      this.closeRead(from);
    }
  }

  private closeRead(from: number): void {
    const left = (this.openReads.get(from) ?? 1) - 1;
    if (left > 0) this.openReads.set(from, left);
    else this.openReads.delete(from);
    if (this.openReads.size === 0) {
      this.settledAt.clear();
      return;
    }
    // Settles no open read started before are of no use to any: forgotten.
    const oldest = Math.min(...this.openReads.keys());
    for (const [id, at] of this.settledAt) {
      if (at > oldest) break;
      this.settledAt.delete(id);
    }
  }

  has(id: string): boolean {
    return this.device.has(id);
  }

  /** A task's state as the API shows it: `running` while its push is in flight here. */
  shown(task: Pick<SyncTaskRow, 'id' | 'state'>): SyncState {
    return task.state === 'pending' && this.has(task.id) ? 'running' : task.state;
  }

  /** The rows whose shown state is `state` (the database holds no task `running`: 0260). */
  whereShown(state: SyncState): WhereOptions<SyncTaskRow> {
    const ids = this.ids();
    if (state === 'running') return { state: 'pending', id: ids };
    if (state === 'pending' && ids.length > 0) return { state, id: { [Op.notIn]: ids } };
    return { state };
  }

  /** Of one device, or all. */
  ids(deviceId?: string): string[] {
    if (deviceId === undefined) return [...this.device.keys()];
    return [...this.device].filter(([, d]) => d === deviceId).map(([id]) => id);
  }
}
