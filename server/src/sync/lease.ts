import type { AppContext } from '../context.js';
import { LEASE_MS } from './claim.js';

type Deps = Pick<AppContext, 'models' | 'clock' | 'logger'>;

/** Leases of a claim in flight are extended this often (well inside LEASE_MS). */
export const RENEW_EVERY_MS = Math.floor(LEASE_MS / 4);

/**
 * Keeps one claim's leases alive while its pushes are in flight, so the lease itself can be
 * short: a process killed mid-push (or one that lost the database and could not record) frees
 * its tasks within LEASE_MS instead of holding them for as long as the slowest device could take.
 */
export function keepLeases(deps: Deps, claimant: string): { stop(): void } {
  const renew = async () => {
    const now = deps.clock.now();
    try {
      await deps.models.SyncTask.update(
        { claimedUntil: new Date(now.getTime() + LEASE_MS) },
        { where: { claimedBy: claimant, state: 'running' } },
      );
    } catch (err) {
      // The database is away: the lease runs out and another run (or process) takes over.
      deps.logger.warn({ err, claimant }, 'sync lease renewal failed');
    }
  };
  const timer = setInterval(() => void renew(), RENEW_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
