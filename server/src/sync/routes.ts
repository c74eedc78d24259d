import type { Request } from 'express';
import { Op, type WhereOptions } from 'sequelize';
import type { AppContext } from '../context.js';
import type { SyncTaskRow } from '../db/business-models.js';
import type { Api } from '../http/api.js';
import { httpErrors } from '../http/errors.js';
import { auditActor, byIdWhere, orgWhere, visible } from '../http/scope.js';
import { createDeviceClient, isOnline } from '../devices/service.js';
import { publishSyncState } from './live.js';
import { lastReconciliation } from './reconciliation/read-back.js';
import {
  deviceSyncOut,
  idParams,
  peopleSyncOut,
  peopleSyncQuery,
  personSyncOut,
  reconciliationStarted,
  retriedOut,
  syncTaskList,
  syncTaskOut,
  syncTasksQuery,
  toTaskOut,
} from './schemas.js';
import { freshAttempts } from './delivery/failures.js';
import { peopleSyncHealth } from './overview/service.js';
import { personNames } from './overview/store.js';

const retryValues = (now: Date) => ({ state: 'pending' as const, ...freshAttempts(now) });

/** Synchronization state and controls (PROTOCOL §7 `GET /api/sync/tasks`, `/people/{id}/sync`). */
export function registerSyncRoutes(api: Api, ctx: AppContext): void {
  const tags = ['sync'];
  const access = { kind: 'session' } as const;
  const { inFlight } = ctx.sync;

  const snOf = async (deviceIds: string[]) => {
    const rows = await ctx.models.Device.findAll({
      attributes: ['id', 'sn'],
      where: { id: [...new Set(deviceIds)] },
      raw: true,
    });
    return new Map(rows.map((r) => [r.id, r.sn]));
  };
  const loadDevice = async (req: Request, id: string) =>
    visible(req, await ctx.models.Device.findOne({ where: byIdWhere(req, id) }), 'Device');

  api.add(
    {
      method: 'get',
      path: '/sync/tasks',
      summary: 'Synchronization tasks, filtered by person, device, state and lane',
      tags,
      access,
      query: syncTasksQuery,
      responses: { 200: syncTaskList },
    },
    async ({ query }, req, res) => {
      // By state or lane alone: device by device (sync_tasks_device_due leads with device,
      // state and lane; no index leads with state or lane).
      const byDevice =
        (query.state || query.lane) && !query.deviceId && !query.personId
          ? (
              await ctx.models.Device.findAll({
                attributes: ['id'],
                where: orgWhere(req),
                raw: true,
              })
            ).map((d) => d.id)
          : undefined;
      const where: WhereOptions<SyncTaskRow> = {
        ...orgWhere(req),
        ...(query.personId && { personId: query.personId }),
        ...(query.deviceId && { deviceId: query.deviceId }),
        ...(byDevice && { deviceId: byDevice }),
        ...(query.state && inFlight.whereShown(query.state)),
        ...(query.lane && { lane: query.lane }),
      };
      const { rows, count } = await ctx.models.SyncTask.findAndCountAll({
        where,
        order: [
          ['updatedAt', 'DESC'],
          ['id', 'ASC'],
        ],
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      const sn = await snOf(rows.map((r) => r.deviceId));
      const names = await personNames(
        ctx.models,
        rows.map((r) => r.personId),
      );
      res.json({
        items: rows.map((r) =>
          toTaskOut(r, sn.get(r.deviceId) ?? '', names.get(r.personId) ?? null, inFlight.shown(r)),
        ),
        total: count,
      });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/people/:id/sync',
      summary: 'Synchronization state of one person on every device',
      tags,
      access,
      params: idParams,
      resource: 'person',
      responses: { 200: personSyncOut },
    },
    async ({ params }, req, res) => {
      visible(req, await ctx.models.Person.findOne({ where: byIdWhere(req, params.id) }), 'Person');
      const rows = await ctx.models.SyncTask.findAll({
        where: { personId: params.id },
        order: [['deviceId', 'ASC']],
      });
      const sn = await snOf(rows.map((r) => r.deviceId));
      res.json({
        items: rows.map((r) => ({
          id: r.id,
          deviceId: r.deviceId,
          sn: sn.get(r.deviceId) ?? '',
          action: r.action,
          state: inFlight.shown(r),
          version: r.personVersion,
          photoSha256: r.photoSha256,
          resultVersion: r.resultVersion,
          resultPhotoSha256: r.resultPhotoSha256,
          attempts: r.attempts,
          nextAttemptAt: r.nextAttemptAt.toISOString(),
          updatedAt: r.updatedAt.toISOString(),
          ...(r.errorCode && { error: { code: r.errorCode, message: r.errorMessage ?? '' } }),
        })),
      });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/sync/people',
      summary:
        'Synchronization of up to 100 people at once (`ids`, comma-separated): their tasks counted by state',
      tags,
      access,
      query: peopleSyncQuery,
      responses: { 200: peopleSyncOut },
    },
    async ({ query }, req, res) => {
      res.json(await peopleSyncHealth(ctx, orgWhere(req), query.ids));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/sync/devices/:id',
      summary: 'Synchronization of one device: tasks by state, people held, last reconciliation',
      tags,
      access,
      params: idParams,
      resource: 'device',
      responses: { 200: deviceSyncOut },
    },
    async ({ params }, req, res) => {
      const device = await loadDevice(req, params.id);
      const byState = (await ctx.models.SyncTask.count({
        where: { deviceId: device.id },
        group: ['state'],
      })) as unknown as { state: string; count: number }[];
      const counts = { pending: 0, running: 0, succeeded: 0, failed: 0 };
      for (const row of byState) {
        if (row.state in counts) counts[row.state as keyof typeof counts] = Number(row.count);
      }
      // Pending in the database, pushed right now.
      const pushing = Math.min(counts.pending, inFlight.ids(device.id).length);
      counts.pending -= pushing;
      counts.running += pushing;
      res.json({
        deviceId: device.id,
        sn: device.sn,
        online: isOnline(device, ctx.clock.now(), ctx.config.heartbeatTimeoutS),
        counts,
        held: await ctx.models.SyncTask.count({
          where: { deviceId: device.id, action: 'put', resultVersion: { [Op.ne]: null } },
        }),
        capacity: device.capacity,
        lastReconciliation: await lastReconciliation(ctx, device.id),
        reconcilingSince: ctx.sync.reconciliations.since(device.id)?.toISOString() ?? null,
      });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/sync/tasks/:id/retry',
      summary: 'Try a task again now (attempts start over)',
      tags,
      access,
      params: idParams,
      resource: 'syncTask',
      responses: { 200: syncTaskOut },
    },
    async ({ params }, req, res) => {
      const task = visible(
        req,
        await ctx.models.SyncTask.findOne({ where: byIdWhere(req, params.id) }),
        'Sync task',
      );
      if (inFlight.shown(task) === 'running') {
        throw httpErrors.conflict('The task is being pushed right now; look again in a moment.');
      }
      const now = ctx.clock.now();
      await ctx.db.sequelize.transaction(async (transaction) => {
        await task.update(retryValues(now), { transaction });
        await ctx.audit.record(
          {
            action: 'sync.retry',
            target: { type: 'sync_task', id: task.id },
            summary: `retry of ${task.action} of person ${task.personId} on device ${task.deviceId}`,
            ...auditActor(req),
          },
          transaction,
        );
      });
      publishSyncState(ctx, task, { state: task.state, attempts: task.attempts, errorCode: null });
      ctx.sync.worker?.kick();
      const sn = await snOf([task.deviceId]);
      const names = await personNames(ctx.models, [task.personId]);
      res.json(toTaskOut(task, sn.get(task.deviceId) ?? '', names.get(task.personId) ?? null));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/sync/devices/:id/retry-failed',
      summary: 'Try every failed task of a device again now',
      tags,
      access,
      params: idParams,
      resource: 'device',
      responses: { 200: retriedOut },
    },
    async ({ params }, req, res) => {
      const device = await loadDevice(req, params.id);
      const now = ctx.clock.now();
      const retried = await ctx.db.sequelize.transaction(async (transaction) => {
        const [count] = await ctx.models.SyncTask.update(retryValues(now), {
          where: { deviceId: device.id, state: 'failed' },
          transaction,
        });
        await ctx.audit.record(
          {
            action: 'sync.retry_failed',
            target: { type: 'device', id: device.id },
            summary: `retry of ${count} failed task(s) on device ${device.sn}`,
            ...auditActor(req),
          },
          transaction,
        );
        return count;
      });
      ctx.sync.worker?.kick();
      res.json({ retried });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/sync/devices/:id/reconcile',
      summary:
        "Start reading every person back from the device and queueing whatever differs (202; the result becomes the device's lastReconciliation)",
      tags,
      access,
      params: idParams,
      resource: 'device',
      responses: { 202: reconciliationStarted },
    },
    async ({ params }, req, res) => {
      const device = await loadDevice(req, params.id);
      const client = ctx.sync.worker?.client ?? createDeviceClient();
      const run = ctx.sync.reconciliations.run(ctx, device, { client });
      if (!run.alreadyRunning) {
        const actor = auditActor(req);
        // Answered at once (at 100,000 people the read-back takes minutes); the audit entry
        // and the kick come when it ends.
        void run.done
          .then(
            async (summary) => {
              if (summary.requeued > 0) ctx.sync.worker?.kick();
              await ctx.audit.record({
                action: 'sync.reconcile',
                target: { type: 'device', id: device.id },
                summary: `reconciliation of device ${device.sn}: ${summary.checked} checked, ${summary.requeued} queued again, ${summary.errors} error(s)${summary.error ? ` (${summary.error})` : ''}`,
                ...actor,
              });
            },
            (err: unknown) =>
              ctx.logger.warn({ err, device: device.id }, 'sync reconciliation failed'),
          )
          .catch((err: unknown) => ctx.logger.warn({ err }, 'sync reconciliation not audited'));
      }
      res.status(202).json({
        deviceId: device.id,
        startedAt: run.startedAt.toISOString(),
        alreadyRunning: run.alreadyRunning,
      });
    },
  );
}
