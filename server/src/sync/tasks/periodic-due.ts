import type { AppContext } from '../../platform/context.js';
import { devicesWithDueWork } from './store.js';

/**
 * Whether a periodic safety net (the full plan, the reconciliation) runs now: its period has
 * passed and no online device has due work. During a backfill it waits — the work was just
 * planned and is being pushed, and a full plan beside the pushes slows them markedly — but one
 * period more at most, so a site that always has work is not left without it.
 */
export async function periodicDue(
  deps: Pick<AppContext, 'sync' | 'clock' | 'config'>,
  { sinceLastMs, everyMs }: { sinceLastMs: number; everyMs: number },
): Promise<boolean> {
  if (everyMs <= 0 || sinceLastMs <= everyMs) return false;
  if (sinceLastMs > 2 * everyMs) return true;
  const busy = await devicesWithDueWork(deps, deps.clock.now(), deps.config.heartbeatTimeoutS);
  return busy.length === 0;
}
