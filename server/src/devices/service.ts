import { Op, type WhereOptions } from 'sequelize';
import type { DeviceOut } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { DeviceRow } from '../platform/db/business-models.js';
import type { DeviceTarget } from './client.js';
import { driftWarning } from './clock.js';
import { hashDeviceKey } from './keys.js';
import { DeviceKeyUnavailable } from './key-vault.js';
import { editTagOf } from '../platform/http/etag.js';

export {
  createDeviceClient,
  DeviceCallError,
  type DeviceCallFailure,
  type DeviceClient,
  type DeviceClientOptions,
  type DeviceTarget,
} from './client.js';
export { DeviceKeyUnavailable };
export { hashDeviceKey, newDeviceKey } from './keys.js';

/**
 * PROTOCOL §3/§5: a device is online while it is enabled and its last heartbeat is at most
 * `timeoutS` seconds old (by the service's clock).
 */
export function isOnline(
  device: Pick<DeviceRow, 'enabled' | 'lastHeartbeatAt' | 'keyRefusedAt'>,
  now: Date,
  timeoutS: number,
): boolean {
  // A device calling with a refused key is cut off now, whatever its last accepted heartbeat
  // (the refusal is cleared by the next accepted one): never "online" beside "key refused".
  return (
    device.enabled &&
    device.keyRefusedAt === null &&
    device.lastHeartbeatAt !== null &&
    now.getTime() - device.lastHeartbeatAt.getTime() <= timeoutS * 1000
  );
}

/** The same rule as isOnline, as a query condition. */
export function onlineWhere(now: Date, timeoutS: number): WhereOptions<DeviceRow> {
  return {
    enabled: true,
    keyRefusedAt: null,
    lastHeartbeatAt: { [Op.gte]: new Date(now.getTime() - timeoutS * 1000) },
  };
}

export function offlineWhere(now: Date, timeoutS: number): WhereOptions<DeviceRow> {
  return {
    [Op.or]: [
      { enabled: false },
      { keyRefusedAt: { [Op.ne]: null } },
      { lastHeartbeatAt: null },
      { lastHeartbeatAt: { [Op.lt]: new Date(now.getTime() - timeoutS * 1000) } },
    ],
  };
}

/**
 * The device whose key this is, when it is also the device with serial `sn`; null otherwise.
 * The lookup goes through the unique key_hash index, so no comparison of secrets happens in
 * this process (and a key of one device never authenticates another's serial).
 */
export async function findDeviceByKey(
  ctx: Pick<AppContext, 'models'>,
  sn: string,
  key: string,
): Promise<DeviceRow | null> {
  const device = await ctx.models.Device.findOne({ where: { keyHash: hashDeviceKey(key) } });
  return device && device.sn === sn ? device : null;
}

/**
 * A heartbeat for `sn` came with a key we refuse: remembered once (the first refusal since the
 * last accepted heartbeat), so the site can say "key refused since …" instead of only
 * "Offline". An unknown serial number changes nothing.
 */
export async function noteKeyRefused(
  ctx: Pick<AppContext, 'models'>,
  sn: string,
  now: Date,
): Promise<void> {
  await ctx.models.Device.update({ keyRefusedAt: now }, { where: { sn, keyRefusedAt: null } });
}

/**
 * What a DeviceClient needs to call this device, with its current key. Throws
 * DeviceKeyUnavailable when the key cannot be recovered (the device then needs a rotation).
 */
export async function deviceTarget(
  ctx: Pick<AppContext, 'deviceKeys'>,
  device: Pick<DeviceRow, 'id' | 'sn' | 'baseUrl' | 'keyHash'>,
): Promise<DeviceTarget> {
  const key = await ctx.deviceKeys.open(device.id);
  // A sealed copy that no longer matches the hash is stale (e.g. restored from another backup).
  if (hashDeviceKey(key) !== device.keyHash) {
    throw new DeviceKeyUnavailable(
      `the stored key of device ${device.sn} does not match its registered key: rotate the device key`,
    );
  }
  return { sn: device.sn, baseUrl: device.baseUrl, key };
}

export function toDeviceOut(device: DeviceRow, now: Date, timeoutS: number): DeviceOut {
  return {
    id: device.id,
    organizationId: device.organizationId,
    sn: device.sn,
    name: device.name,
    model: device.model,
    spaceId: device.spaceId,
    baseUrl: device.baseUrl,
    enabled: device.enabled,
    capacity: device.capacity,
    maxPhotoBytes: device.maxPhotoBytes,
    maxPhotoPixels: device.maxPhotoPixels,
    minPhotoSide: device.minPhotoSide ?? null,
    photoBaseline420: device.photoBaseline420 ?? false,
    minFacePx: device.minFacePx ?? null,
    online: isOnline(device, now, timeoutS),
    lastHeartbeatAt: device.lastHeartbeatAt?.toISOString() ?? null,
    keyRefusedAt: device.keyRefusedAt?.toISOString() ?? null,
    clock: {
      driftMs: device.clockDriftMs ?? null,
      checkedAt: device.clockCheckedAt?.toISOString() ?? null,
      source: device.clockSource ?? null,
    },
    warnings: [driftWarning(device)].filter((w) => w !== null),
    createdAt: device.createdAt.toISOString(),
    updatedAt: device.updatedAt.toISOString(),
    etag: deviceEditTag(device),
  };
}

/** The registration fields a PATCH can change (heartbeats and clocks leave an edit valid). */
function deviceEditTag(d: DeviceRow): string {
  return editTagOf('device', [
    d.name,
    d.model,
    d.spaceId,
    d.baseUrl,
    d.enabled,
    d.capacity,
    d.maxPhotoBytes,
    d.maxPhotoPixels,
    d.minPhotoSide ?? null,
    d.photoBaseline420 ?? false,
    d.minFacePx ?? null,
  ]);
}
