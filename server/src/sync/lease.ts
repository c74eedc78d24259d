import { QueryTypes } from 'sequelize';
import type { AppContext } from '../context.js';
import { retryOnDeadlock } from '../db/deadlock.js';
import { sqlDate } from '../db/sql-dates.js';
import { LEASE_MS } from './claim.js';

type Deps = Pick<AppContext, 'db' | 'clock' | 'logger'>;

/** Held devices are extended this often (well inside LEASE_MS). */
export const RENEW_EVERY_MS = Math.floor(LEASE_MS / 4);

/**
 * The devices one worker run pushes to. A process pushes a device's tasks only while it holds
 * the device (its row in sync_device_leases, LEASE_MS long, renewed every RENEW_EVERY_MS while
 * the run lasts), so two processes never push the same task at once, and the tasks need no
 * claim of their own: they stay `pending` until their outcome is written, once. Claiming every
 * task (a locking read, then marking it `running`) was 40 % of MariaDB's work in a backfill.
 * A process killed mid-push frees its devices within LEASE_MS, and what it pushed but had not
 * written is still pending: pushed again by whoever holds the device next (PUT is idempotent).
 */
export class DeviceLeases {
  private readonly held = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: Deps,
    /** The worker's name in sync_device_leases, for its whole life (worker.ts). */
    private readonly claimant: string,
  ) {
    this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    this.timer.unref();
  }

  /** Takes the device for this run unless another process holds it; true when it is ours. */
  async acquire(deviceId: string): Promise<boolean> {
    const sequelize = this.deps.db.sequelize;
    const now = this.deps.clock.now();
    const replacements = {
      dev: deviceId,
      me: this.claimant,
      now: sqlDate(sequelize, now),
      until: sqlDate(sequelize, new Date(now.getTime() + LEASE_MS)),
    };
    const take = async () => {
      const [, changed] = await sequelize.query(
        `UPDATE sync_device_leases SET claimed_by = :me, claimed_until = :until
          WHERE device_id = :dev
            AND (claimed_by IS NULL OR claimed_by = :me OR claimed_until < :now)`,
        { replacements, type: QueryTypes.UPDATE },
      );
      return Number(changed) === 1;
    };
    let ours = await retryOnDeadlock(take);
    if (!ours) {
      // The device's first run (no row yet), or nothing changed (the same millisecond):
      // make sure the row exists, then look again.
      const ignore = sequelize.getDialect() === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
      await sequelize.query(`${ignore} INTO sync_device_leases (device_id) VALUES (:dev)`, {
        replacements,
      });
      ours = (await retryOnDeadlock(take)) || (await this.holder(deviceId)) === this.claimant;
    }
    if (ours) this.held.add(deviceId);
    return ours;
  }

  private async holder(deviceId: string): Promise<string | null> {
    const rows = await this.deps.db.sequelize.query<{ claimed_by: string | null }>(
      'SELECT claimed_by FROM sync_device_leases WHERE device_id = :dev',
      { replacements: { dev: deviceId }, type: QueryTypes.SELECT },
    );
    return rows[0]?.claimed_by ?? null;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const sequelize = this.deps.db.sequelize;
    const until = new Date(this.deps.clock.now().getTime() + LEASE_MS);
    try {
      await retryOnDeadlock(() =>
        sequelize.query(
          `UPDATE sync_device_leases SET claimed_until = :until
            WHERE device_id IN (:devices) AND claimed_by = :me`,
          {
            replacements: {
              until: sqlDate(sequelize, until),
              devices: [...this.held],
              me: this.claimant,
            },
          },
        ),
      );
    } catch (err) {
      // The database is away: the leases run out and another run (or process) takes over.
      this.deps.logger.warn({ err }, 'sync lease renewal failed');
    }
  }

  /** The run is over (its outcomes written): renewals stop and its devices are free. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.held.size === 0) return;
    const devices = [...this.held];
    this.held.clear();
    await retryOnDeadlock(() =>
      this.deps.db.sequelize.query(
        `UPDATE sync_device_leases SET claimed_by = NULL, claimed_until = NULL
          WHERE device_id IN (:devices) AND claimed_by = :me`,
        { replacements: { devices, me: this.claimant } },
      ),
    );
  }
}
