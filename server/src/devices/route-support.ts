import { Sequelize, UniqueConstraintError, type Transaction } from 'sequelize';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { DeviceRow } from '../platform/db/business-models.js';
import { httpErrors, invalidFields } from '../platform/http/errors.js';
import { visible } from '../platform/http/scope.js';
import { toDeviceOut } from './service.js';

// What the device administration routes (routes.ts, device-item-routes.ts) share.

export const tags = ['devices'];

/** The fields of a device's photo profile (photos/variants/): a change re-sends its people. */
export const PHOTO_LIMITS = ['maxPhotoBytes', 'maxPhotoPixels', 'minPhotoSide', 'photoBaseline420'];

export function checkPhotoSides(d: Pick<DeviceRow, 'minPhotoSide' | 'maxPhotoPixels'>): void {
  if (d.minPhotoSide != null && d.maxPhotoPixels !== null && d.minPhotoSide > d.maxPhotoPixels) {
    throw invalidFields(
      { minPhotoSide: { code: 'photo_side_order', params: { max: d.maxPhotoPixels } } },
      `The minimum photo side (${d.minPhotoSide}) is larger than the maximum (${d.maxPhotoPixels}).`,
    );
  }
}

/** The context the device routes need, with how a device is answered and found. */
export interface DeviceKit {
  ctx: AppContext;
  out: (device: DeviceRow) => ReturnType<typeof toDeviceOut>;
  load: (req: Request, id: string) => Promise<DeviceRow>;
}

export function deviceKit(ctx: AppContext): DeviceKit {
  const { models, clock } = ctx;
  const timeoutS = ctx.config.heartbeatTimeoutS;
  const out = (device: DeviceRow) => toDeviceOut(device, clock.now(), timeoutS);
  const load = async (req: Request, id: string) =>
    visible(req, await models.Device.findByPk(id), 'Device');
  return { ctx, out, load };
}

export function show(value: unknown): string {
  return value === null || value === undefined ? 'none' : JSON.stringify(value);
}

/** The base URL is called with the device key; credentials inside it would be stored in clear. */
export function checkBaseUrl(baseUrl: string): void {
  const url = new URL(baseUrl);
  if (url.username || url.password || url.search || url.hash) {
    throw invalidFields({ baseUrl: { code: 'url_device_base' } });
  }
}

export async function checkSpace(
  ctx: AppContext,
  spaceId: string | null | undefined,
  organizationId: string,
): Promise<void> {
  if (!spaceId) return;
  const space = await ctx.models.Space.findOne({ where: { id: spaceId, organizationId } });
  if (!space) {
    throw invalidFields({ spaceId: { code: 'no_such_space' } });
  }
}

/** Serial numbers are unique regardless of case (MySQL's collation would say so anyway). */
export async function checkSnFree(ctx: AppContext, sn: string): Promise<void> {
  const taken = await ctx.models.Device.findOne({
    where: Sequelize.where(Sequelize.fn('LOWER', Sequelize.col('sn')), sn.toLowerCase()),
  });
  if (taken) throw snTaken(sn);
}

const snTaken = (sn: string) =>
  httpErrors.conflict(`A device with serial number "${sn}" is already registered.`, {
    reason: 'serial_number_taken',
    serialNumber: sn,
  });

/** A concurrent registration of the same serial loses at the unique index: still a 409. */
export async function inTransaction<T>(
  ctx: AppContext,
  sn: string,
  work: (transaction: Transaction) => Promise<T>,
): Promise<T> {
  try {
    return await ctx.db.sequelize.transaction(work);
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw snTaken(sn);
    throw err;
  }
}
