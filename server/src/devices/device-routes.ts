import { ErrorCode, deviceHeartbeat, onlineCount, serverTimeResponse } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { bearerToken, type Api } from '../platform/http/api.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { findDeviceByKey, noteKeyRefused, onlineWhere } from './service.js';
import { orgWhere } from '../platform/http/scope.js';

/** What devices call (PROTOCOL §3) and the seed's online count (§5). */
export function registerDeviceEndpoints(api: Api, ctx: AppContext): void {
  const { models, clock } = ctx;

  api.add(
    {
      method: 'post',
      path: '/device/heartbeat',
      summary:
        'Device heartbeat: the device is online while enabled and heard from within HEARTBEAT_TIMEOUT',
      tags: ['device protocol'],
      access: { kind: 'device' },
      body: deviceHeartbeat,
      bodyLimit: '4kb',
      responses: { 200: serverTimeResponse },
    },
    async ({ body }, _req, res) => {
      const device = await findDeviceByKey(ctx, body.sn, bearerToken(res));
      if (!device) {
        await noteKeyRefused(ctx, body.sn, clock.now());
        throw new HttpError(
          401,
          ErrorCode.unauthorized,
          'Unknown device key, or not the key of this serial number.',
        );
      }
      if (!device.enabled) {
        throw httpErrors.forbidden(`Device ${device.sn} is disabled in the central service.`);
      }
      const now = clock.now();
      // Not audited: a heartbeat every few seconds per device is operation, not a change.
      // On MySQL a backfill's task inserts share-lock the device row (its foreign key) and now
      // and then deadlock with this update: tried again (db/deadlock.ts) rather than a 500.
      const clockFields = ctx.deviceClocks.fromHeartbeat(device, body.time, now);
      await models.Device.update(
        { lastHeartbeatAt: now, keyRefusedAt: null, ...clockFields },
        { where: { id: device.id } },
      );
      res.json({ serverTime: now.toISOString() });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/device/online-count',
      summary:
        'Enabled devices heard from within HEARTBEAT_TIMEOUT (a signed-in administrator: of their organization)',
      tags: ['devices'],
      access: { kind: 'session-or-trusted' },
      responses: { 200: onlineCount },
    },
    async (_input, req, res) => {
      // A trusted-network client without a session sees the whole installation; a session
      // never sees past its organization (a superadmin: the one worked in, or all).
      const scope = req.auth ? orgWhere(req) : {};
      const count = await models.Device.count({
        where: { ...onlineWhere(clock.now(), ctx.config.heartbeatTimeoutS), ...scope },
      });
      res.json({ count });
    },
  );
}
