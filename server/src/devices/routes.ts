import { randomUUID } from 'node:crypto';
import {
  ForeignKeyConstraintError,
  Sequelize,
  UniqueConstraintError,
  type Transaction,
} from 'sequelize';
import {
  deviceCreate,
  deviceOut,
  deviceUpdate,
  deviceWithKey,
  idParams,
  listOf,
} from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { DeviceRow } from '../platform/db/business-models.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors, invalidFields } from '../platform/http/errors.js';
import { assertUnchanged, ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { auditActor, orgWhere, visible, actingOrganization } from '../platform/http/scope.js';
import { registerDeviceEndpoints } from './device-routes.js';
import { resendDevicePhotos } from '../sync/planning/store/tasks.js';
import { devicesOrder, devicesQuery, devicesWhere } from './queries.js';
import { hashDeviceKey, newDeviceKey, toDeviceOut } from './service.js';

const tags = ['devices'];

/** The fields of a device's photo profile (photos/variants/): a change re-sends its people. */
const PHOTO_LIMITS = ['maxPhotoBytes', 'maxPhotoPixels', 'minPhotoSide', 'photoBaseline420'];

function checkPhotoSides(d: Pick<DeviceRow, 'minPhotoSide' | 'maxPhotoPixels'>): void {
  if (d.minPhotoSide != null && d.maxPhotoPixels !== null && d.minPhotoSide > d.maxPhotoPixels) {
    throw invalidFields(
      { minPhotoSide: { code: 'photo_side_order', params: { max: d.maxPhotoPixels } } },
      `The minimum photo side (${d.minPhotoSide}) is larger than the maximum (${d.maxPhotoPixels}).`,
    );
  }
}

/** Administrator API for recognition devices (PROTOCOL §7) and the device endpoints (§3, §5). */
export function registerDeviceRoutes(api: Api, ctx: AppContext): void {
  const { models, clock, audit } = ctx;
  const timeoutS = ctx.config.heartbeatTimeoutS;
  const out = (device: DeviceRow) => toDeviceOut(device, clock.now(), timeoutS);
  const load = async (req: Request, id: string) =>
    visible(req, await models.Device.findByPk(id), 'Device');

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

  api.add(
    {
      method: 'get',
      path: '/devices/:id',
      summary: 'One device',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'device',
      responses: { 200: deviceOut },
    },
    async ({ params }, req, res) => {
      sendTagged(res, out(await load(req, params.id)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/devices/:id',
      summary: 'Change a device (any subset of the registration fields except sn)',
      tags,
      access: { kind: 'session' },
      params: idParams,
      body: deviceUpdate,
      resource: 'device',
      responses: { 200: deviceOut },
    },
    async ({ params, body }, req, res) => {
      const device = await load(req, params.id);
      if (body.baseUrl !== undefined) checkBaseUrl(body.baseUrl);
      if (body.spaceId !== undefined) await checkSpace(ctx, body.spaceId, device.organizationId);
      await ctx.db.sequelize.transaction(async (transaction) => {
        // Compared and changed under the row's lock: a concurrent edit cannot slip between.
        await device.reload({ transaction, lock: transaction.LOCK.UPDATE });
        assertUnchanged(ifMatchOf(req), out(device).etag, 'device');
        const changes: Partial<Pick<DeviceRow, keyof typeof body>> = {};
        const described: string[] = [];
        for (const [field, value] of Object.entries(body) as [keyof typeof body, unknown][]) {
          if (value === undefined || device.get(field) === value) continue;
          Object.assign(changes, { [field]: value });
          described.push(`${field} ${show(device.get(field))} → ${show(value)}`);
        }
        checkPhotoSides({ ...device.get(), ...changes });
        if (described.length === 0) return;
        await device.update({ ...changes, updatedAt: clock.now() }, { transaction });
        let requeued = -1;
        if (PHOTO_LIMITS.some((f) => f in changes)) {
          const resent = await resendDevicePhotos(ctx, device.id, clock.now(), transaction);
          described.push(`${resent} people queued again with photos fitted to the new limits`);
          requeued = resent;
        }
        await audit.record(
          {
            action: 'device.update',
            target: { type: 'device', id: device.id },
            summary: `device ${device.sn}: ${described.join('; ')}`,
            // `requeued` -1: no photo limit changed, nobody queued again.
            message: {
              code: 'device_updated',
              params: { sn: device.sn, fields: Object.keys(changes).join(','), requeued },
            },
            ...auditActor(req),
          },
          transaction,
        );
      });
      sendTagged(res, out(device));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/devices/:id',
      summary: 'Remove a device (its key stops working at once)',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'device',
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      const device = await load(req, params.id);
      try {
        await ctx.db.sequelize.transaction(async (transaction) => {
          await device.destroy({ transaction });
          await ctx.deviceKeys.forget(device.id, transaction);
          await audit.record(
            {
              action: 'device.delete',
              target: { type: 'device', id: device.id },
              summary: `removed device ${device.sn} "${device.name}"`,
              message: { code: 'device_deleted', params: { sn: device.sn, name: device.name } },
              ...auditActor(req),
            },
            transaction,
          );
        });
      } catch (err) {
        if (err instanceof ForeignKeyConstraintError) {
          throw httpErrors.conflict(
            `Device ${device.sn} still has records that refer to it (synchronization or recognition history); disable it instead.`,
            { reason: 'device_has_records', sn: device.sn },
          );
        }
        throw err;
      }
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/devices/:id/key',
      summary:
        'Rotate the device key: the new key is in the answer (shown once), the old one stops working at once',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'device',
      responses: { 200: deviceWithKey },
    },
    async ({ params }, req, res) => {
      const device = await load(req, params.id);
      const key = newDeviceKey();
      const now = clock.now();
      await ctx.db.sequelize.transaction(async (transaction) => {
        await device.update(
          // A refusal of the old key is news no more; the new key's refusals start afresh.
          { keyHash: hashDeviceKey(key), keyRotatedAt: now, keyRefusedAt: null, updatedAt: now },
          { transaction },
        );
        await ctx.deviceKeys.seal(device.id, key, transaction);
        await audit.record(
          {
            action: 'device.key_rotate',
            target: { type: 'device', id: device.id },
            summary: `rotated the key of device ${device.sn}; the previous key no longer works`,
            message: { code: 'device_key_rotated', params: { sn: device.sn } },
            ...auditActor(req),
          },
          transaction,
        );
      });
      res.json({ ...out(device), key });
    },
  );

  registerDeviceEndpoints(api, ctx);
}

function show(value: unknown): string {
  return value === null || value === undefined ? 'none' : JSON.stringify(value);
}

/** The base URL is called with the device key; credentials inside it would be stored in clear. */
function checkBaseUrl(baseUrl: string): void {
  const url = new URL(baseUrl);
  if (url.username || url.password || url.search || url.hash) {
    throw invalidFields({ baseUrl: { code: 'url_device_base' } });
  }
}

async function checkSpace(
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
async function checkSnFree(ctx: AppContext, sn: string): Promise<void> {
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
async function inTransaction<T>(
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
