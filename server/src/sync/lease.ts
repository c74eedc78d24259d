import { Op } from 'sequelize';
import { retryOnDeadlock } from '../db/deadlock.js';
import type { AppContext } from '../context.js';
import { LEASE_MS } from './claim.js';

type Deps = Pick<AppContext, 'models' | 'clock' | 'logger'>;

/** Leases of claims in flight are extended this often (well inside LEASE_MS). */
export const RENEW_EVERY_MS = Math.floor(LEASE_MS / 4);

/** Claimants renewed per statement (an IN list). */
const RENEW_CHUNK = 500;

/**
 * Keeps the leases of every claim a worker run holds alive while its tasks are pushed or wait
 * to be recorded, in one statement per renewal for all of them, so the lease itself can be
 * short: a process killed mid-push (or one that lost the database and could not record) frees
 * its tasks within LEASE_MS instead of holding them for as long as the slowest device could
 * take. A claim is held until each of its tasks is accounted for (`settle`), or dropped at once
 * (`drop`) when its outcomes could not be written: then the lease runs out and the tasks come
 * back through recoverExpiredLeases.
 */
export class LeaseKeeper {
  /** Open claims: tasks not yet accounted for, and the device (renewal reads by device). */
  private readonly open = new Map<string, { count: number; deviceId: string }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: Deps) {
    this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    this.timer.unref();
  }

  /** A claim of `count` tasks of one device is now in flight. */
  hold(claimant: string, count: number, deviceId: string): void {
    if (count <= 0) return;
    const held = this.open.get(claimant);
    this.open.set(claimant, { count: (held?.count ?? 0) + count, deviceId });
  }

  /** One task of the claim is written (or given up): the claim is released after its last. */
  settle(claimant: string | null): void {
    if (claimant === null) return;
    const held = this.open.get(claimant);
    if (held && held.count > 1) held.count--;
    else this.open.delete(claimant);
  }

  /** Stops renewing a claim whose outcomes could not be written. */
  drop(claimant: string | null): void {
    if (claimant !== null) this.open.delete(claimant);
  }

  get claims(): number {
    return this.open.size;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    const claims = [...this.open];
    const until = new Date(this.deps.clock.now().getTime() + LEASE_MS);
    for (let i = 0; i < claims.length; i += RENEW_CHUNK) {
      const chunk = claims.slice(i, i + RENEW_CHUNK);
      try {
        // Idempotent: run again when it loses a deadlock to a claim or a plan (MySQL).
        await retryOnDeadlock(() =>
          this.deps.models.SyncTask.update(
            { claimedUntil: until },
            {
              where: {
                // Device by device through sync_tasks_device_due: no index leads with claimed_by.
                deviceId: [...new Set(chunk.map(([, held]) => held.deviceId))],
                state: 'running',
                claimedBy: { [Op.in]: chunk.map(([claimant]) => claimant) },
              },
            },
          ),
        );
      } catch (err) {
        // The database is away: the leases run out and another run (or process) takes over.
        this.deps.logger.warn({ err }, 'sync lease renewal failed');
        return;
      }
    }
  }
}
