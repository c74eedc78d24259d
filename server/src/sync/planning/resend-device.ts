import type { Transaction } from 'sequelize';
import type { AppContext } from '../../context.js';
import { freshAttempts } from '../delivery/failures.js';

/**
 * A device's photo limits changed: every person it holds or should hold is pushed again, in
 * the bulk lane, with the photo its new profile gets (photos/variants/); a task failed for a
 * photo that did not fit is tried again. Returns how many tasks were queued.
 */
export async function resendDevicePhotos(
  ctx: Pick<AppContext, 'models'>,
  deviceId: string,
  now: Date,
  transaction: Transaction,
): Promise<number> {
  const [count] = await ctx.models.SyncTask.update(
    { state: 'pending', lane: 'bulk', ...freshAttempts(now) },
    { where: { deviceId, action: 'put' }, transaction },
  );
  return count;
}
