import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../../platform/context.js';
import { rowLease, type RowLease } from '../../platform/db/row-lease.js';
import { LEASE_MS, RENEW_EVERY_MS } from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

const PROCESS_TAG = `${hostname().slice(0, 32)}:${process.pid}`;

/** A worker's name in sync_device_leases: this process plus randomness. */
export function newHolder(): string {
  return `${PROCESS_TAG}:${randomBytes(8).toString('hex')}`;
}

/**
 * The devices one worker run pushes to. A process pushes a device's tasks only while it holds
 * the device (its row in sync_device_leases, a db/row-lease.ts lease like the delivery lanes',
 * LEASE_MS long, renewed every RENEW_EVERY_MS while the run lasts), so two processes never push
 * the same task at once, and the tasks need no claim of their own: they stay `pending` until
 * their outcome is written, once. Claiming every task (a locking read, then marking it
 * `running`) was a large share of the database's work in a backfill. A process killed mid-push frees its
 * devices within LEASE_MS, and what it pushed but had not written is still pending: pushed
 * again by whoever holds the device next (PUT is idempotent).
 */
export class DeviceLeases {
  private readonly held = new Map<string, RowLease>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: Deps,
    /** The worker's name in sync_device_leases, for its whole life (worker.ts). */
    private readonly holder: string,
  ) {
    this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    this.timer.unref();
  }

  /** Takes (or renews) the device for this run unless another process holds it. */
  async acquire(deviceId: string): Promise<boolean> {
    const lease =
      this.held.get(deviceId) ??
      rowLease(
        { sequelize: this.deps.sync.db.sequelize, clock: this.deps.clock },
        { table: 'sync_device_leases', keyColumn: 'device_id', key: deviceId },
        { ttlMs: LEASE_MS, owner: this.holder },
      );
    const ours = await lease.acquire();
    if (ours) this.held.set(deviceId, lease);
    return ours;
  }

  private async renew(): Promise<void> {
    try {
      for (const lease of this.held.values()) await lease.acquire();
    } catch (err) {
      // The database is away: the leases run out and another run (or process) takes over.
      this.deps.logger.warn({ err }, 'sync lease renewal failed');
    }
  }

  /** The run is over (its outcomes written): renewals stop and its devices are free. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const leases = [...this.held.values()];
    this.held.clear();
    for (const lease of leases) await lease.release();
  }
}
