import { Op, Sequelize, type Order, type WhereOptions } from 'sequelize';
import { z } from 'zod';
import { pageQuery, uuid } from '@svc/shared';
import type { DeviceRow } from '../platform/db/business-models.js';
import { offlineWhere, onlineWhere } from './service.js';

const boolFlag = z.enum(['true', 'false']);

/** `GET /api/devices` filters; q is a case-insensitive prefix of the serial number or name. */
export const devicesQuery = pageQuery.extend({
  q: z
    .string()
    .trim()
    .max(64)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
    .optional(),
  spaceId: uuid.optional(),
  enabled: boolFlag.optional(),
  online: boolFlag.optional(),
  sort: z
    .enum([
      'sn',
      '-sn',
      'name',
      '-name',
      'createdAt',
      '-createdAt',
      'lastHeartbeatAt',
      '-lastHeartbeatAt',
    ])
    .default('sn'),
});
export type DevicesQuery = z.infer<typeof devicesQuery>;

/**
 * Prefix match without LIKE: SUBSTR(LOWER(col), 1, n) = lower(q) behaves the same on SQLite
 * and MySQL and needs no escaping of `%` and `_` (the value is a bound parameter).
 */
function prefixOf(column: string, prefix: string) {
  return Sequelize.where(
    Sequelize.fn('SUBSTR', Sequelize.fn('LOWER', Sequelize.col(column)), 1, [...prefix].length),
    prefix,
  );
}

export function devicesWhere(
  query: DevicesQuery,
  scope: { organizationId?: string },
  now: Date,
  timeoutS: number,
): WhereOptions<DeviceRow> {
  const and: WhereOptions<DeviceRow>[] = [scope];
  if (query.q) {
    const prefix = query.q.toLowerCase();
    and.push({ [Op.or]: [prefixOf('sn', prefix), prefixOf('name', prefix)] });
  }
  if (query.spaceId) and.push({ spaceId: query.spaceId });
  if (query.enabled) and.push({ enabled: query.enabled === 'true' });
  if (query.online === 'true') and.push(onlineWhere(now, timeoutS));
  if (query.online === 'false') and.push(offlineWhere(now, timeoutS));
  return { [Op.and]: and };
}

export function devicesOrder(sort: DevicesQuery['sort']): Order {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  return [
    [field, descending ? 'DESC' : 'ASC'],
    ['id', 'ASC'],
  ];
}
