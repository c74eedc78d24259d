import { ForeignKeyConstraintError } from 'sequelize';
import { deviceOut, deviceUpdate, deviceWithKey, idParams } from '@svc/shared';
import type { DeviceRow } from '../platform/db/business-models.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { assertUnchanged, ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { auditActor } from '../platform/http/scope.js';
import { resendDevicePhotos } from '../sync/planning/store/tasks.js';
import {
  checkBaseUrl,
  checkPhotoSides,
  checkSpace,
  PHOTO_LIMITS,
  show,
  tags,
  type DeviceKit,
} from './route-support.js';
import { hashDeviceKey, newDeviceKey } from './service.js';

/** GET and PATCH /devices/:id: one device, read and changed. */
export function registerDeviceItem(api: Api, { ctx, out, load }: DeviceKit): void {
  const { clock, audit } = ctx;
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
}

/** DELETE /devices/:id: refused while history refers to the device. */
export function registerDeviceRemoval(api: Api, { ctx, load }: DeviceKit): void {
  const { audit } = ctx;
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
}

/** POST /devices/:id/key: key rotation. */
export function registerDeviceKeyRotation(api: Api, { ctx, out, load }: DeviceKit): void {
  const { clock, audit } = ctx;
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
}
