import { Op } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import type { DeviceRow } from '../../../platform/db/business-models.js';

/** A device's row as a stream starts serving it (address, key and state read anew). */
export function readDevice(deps: Pick<AppContext, 'sync'>, id: string): Promise<DeviceRow | null> {
  return deps.sync.db.models.Device.findByPk(id);
}

/** People the device holds by its tasks' acknowledged results: a count over its tasks. */
export function countHeld(deps: Pick<AppContext, 'sync'>, deviceId: string): Promise<number> {
  return deps.sync.db.models.SyncTask.count({
    where: { deviceId, action: 'put', resultVersion: { [Op.ne]: null } },
  });
}
