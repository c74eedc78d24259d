import { randomUUID } from 'node:crypto';
import { deviceCreate, deviceOut, deviceWithKey, listOf } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgWhere, actingOrganization } from '../platform/http/scope.js';
import { registerDeviceEndpoints } from './device-routes.js';
import {
  registerDeviceItem,
  registerDeviceKeyRotation,
  registerDeviceRemoval,
} from './device-item-routes.js';
import { devicesOrder, devicesQuery, devicesWhere } from './queries.js';
import {
  checkBaseUrl,
  checkPhotoSides,
  checkSnFree,
  checkSpace,
  deviceKit,
  inTransaction,
  tags,
  type DeviceKit,
} from './route-support.js';
import { hashDeviceKey, newDeviceKey } from './service.js';

/** Administrator API for recognition devices (PROTOCOL §7) and the device endpoints (§3, §5). */
export function registerDeviceRoutes(api: Api, ctx: AppContext): void {
  const kit = deviceKit(ctx);
  // Registration order is route order: /devices before /devices/:id.
  registerDeviceList(api, kit);
  registerDeviceCreate(api, kit);
  registerDeviceItem(api, kit);
  registerDeviceRemoval(api, kit);
  registerDeviceKeyRotation(api, kit);
  registerDeviceEndpoints(api, ctx);
}

/** GET /devices: the paged, filtered list. */
function registerDeviceList(api: Api, { ctx, out }: DeviceKit): void {
  const { models, clock } = ctx;
  const timeoutS = ctx.config.heartbeatTimeoutS;
  api.add(
    {
      method: 'get',
      path: '/devices',
      summary:
        'Recognition devices, paged; filters: q (serial or name prefix), spaceId, enabled, online',
      tags,
      access: { kind: 'session' },
      query: devicesQuery,
      responses: { 200: listOf(deviceOut) },
    },
    async ({ query }, req, res) => {
      const { rows, count } = await models.Device.findAndCountAll({
        where: devicesWhere(query, orgWhere(req), clock.now(), timeoutS),
        order: devicesOrder(query.sort),
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      res.json({ items: rows.map(out), total: count });
    },
  );
}

/** POST /devices: registration, with the key shown this once. */
function registerDeviceCreate(api: Api, { ctx, out }: DeviceKit): void {
  const { models, clock, audit } = ctx;
  api.add(
    {
      method: 'post',
      path: '/devices',
      summary: 'Register a device; the answer carries its key, the only time it is shown',
      tags,
      access: { kind: 'session' },
      body: deviceCreate,
      responses: { 201: deviceWithKey },
    },
    async ({ body }, req, res) => {
      const organizationId = actingOrganization(req);
      checkBaseUrl(body.baseUrl);
      checkPhotoSides({
        minPhotoSide: body.minPhotoSide ?? null,
        maxPhotoPixels: body.maxPhotoPixels ?? null,
      });
      await checkSpace(ctx, body.spaceId, organizationId);
      await checkSnFree(ctx, body.sn);
      const key = newDeviceKey();
      const now = clock.now();
      const device = await inTransaction(ctx, body.sn, async (transaction) => {
        const row = await models.Device.create(
          {
            id: randomUUID(),
            organizationId,
            sn: body.sn,
            name: body.name,
            model: body.model ?? '',
            spaceId: body.spaceId ?? null,
            baseUrl: body.baseUrl,
            enabled: body.enabled ?? true,
            capacity: body.capacity ?? null,
            maxPhotoBytes: body.maxPhotoBytes ?? null,
            maxPhotoPixels: body.maxPhotoPixels ?? null,
            minPhotoSide: body.minPhotoSide ?? null,
            photoBaseline420: body.photoBaseline420 ?? false,
            minFacePx: body.minFacePx ?? null,
            keyHash: hashDeviceKey(key),
            keyRotatedAt: now,
            lastHeartbeatAt: null,
            createdAt: now,
            updatedAt: now,
          },
          { transaction },
        );
        await ctx.deviceKeys.seal(row.id, key, transaction);
        await audit.record(
          {
            action: 'device.create',
            target: { type: 'device', id: row.id },
            summary: `registered device ${row.sn} "${row.name}" at ${row.baseUrl}${row.enabled ? '' : ' (disabled)'}; key issued`,
            message: {
              code: 'device_created',
              params: {
                sn: row.sn,
                name: row.name,
                baseUrl: row.baseUrl,
                enabled: String(row.enabled),
              },
            },
            ...auditActor(req),
          },
          transaction,
        );
        return row;
      });
      res.status(201).json({ ...out(device), key });
    },
  );
}
