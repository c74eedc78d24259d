import {
  DELIVERY_FAILURES_KEPT,
  deliveryHistoryOut,
  idParams,
  recognitionEventAccepted,
  recognitionEventIn,
  type RecognitionEventIn,
} from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import { bearerToken, type Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, orgScope, orgWhere, actingOrganization } from '../platform/http/scope.js';
import { failedTries } from './store/failures.js';
import { exportEvents } from './events/export.js';
import { acceptEvent } from './intake/intake.js';
import { filterWhere, toEventOut } from './events/records.js';
import { retentionDays } from './events/retention.js';
import {
  recognitionEventList,
  recognitionEventOut,
  recognitionFilter,
  recognitionQuery,
  retentionQuery,
  retentionSetting,
} from './schemas.js';
import { serveStream } from './events/stream.js';

/** A 512 KiB snapshot is ~700 KB of base64; the rest of the event is small. */
const INTAKE_BODY_LIMIT = '800kb';

export function registerRecognitionRoutes(api: Api, ctx: AppContext): void {
  const { models } = ctx;
  const tags = ['recognition'];
  const intake = async (body: RecognitionEventIn, key: string) => {
    const { id, created } = await acceptEvent(ctx, body, key);
    return { status: created ? 202 : 200, body: { id } };
  };

  api.add(
    {
      method: 'post',
      path: '/recognition/events',
      summary:
        'Device → central recognition event (PROTOCOL §3): 202 new, 200 the same eventId again (same id)',
      tags: ['device protocol'],
      access: { kind: 'device' },
      body: recognitionEventIn,
      bodyLimit: INTAKE_BODY_LIMIT,
      responses: { 202: recognitionEventAccepted, 200: recognitionEventAccepted },
    },
    async ({ body }, _req, res) => {
      const answer = await intake(body, bearerToken(res));
      res.status(answer.status).json(answer.body);
    },
  );
  // The same route ahead of Express for the plain case (http/device-fast-path.ts).
  api.fast.post(
    '/api/recognition/events',
    { schema: recognitionEventIn, limit: INTAKE_BODY_LIMIT },
    intake,
  );

  api.add(
    {
      method: 'get',
      path: '/recognition/events',
      summary:
        'Recognition events, newest first; filters personId, sn, deviceId, spaceId, from (inclusive), to (exclusive), deliveryState',
      tags,
      access: { kind: 'session' },
      query: recognitionQuery,
      responses: { 200: recognitionEventList },
    },
    async ({ query }, req, res) => {
      const where = { ...filterWhere(query), ...orgWhere(req) };
      const [rows, total] = await Promise.all([
        models.RecognitionEvent.findAll({
          where,
          order: [
            ['time', 'DESC'],
            ['id', 'DESC'],
          ],
          limit: query.pageSize,
          offset: (query.page - 1) * query.pageSize,
        }),
        models.RecognitionEvent.count({ where }),
      ]);
      res.json({ items: rows.map(toEventOut), total });
    },
  );

  const findVisible = async (req: Parameters<typeof orgWhere>[0], id: string) => {
    const row = await models.RecognitionEvent.findOne({ where: { id, ...orgWhere(req) } });
    if (!row) throw httpErrors.notFound('Recognition event not found.');
    return row;
  };

  api.add(
    {
      method: 'get',
      path: '/recognition/events/:id',
      summary: 'One recognition event with its delivery state and snapshot link',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'recognitionEvent',
      responses: { 200: recognitionEventOut },
    },
    async ({ params }, req, res) => {
      res.json(toEventOut(await findVisible(req, params.id)));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/recognition/events/:id/deliveries',
      summary: `The event's failed delivery tries to the panel, oldest first (the last ${DELIVERY_FAILURES_KEPT} are kept); a delivery itself is the event's deliveredAt`,
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'recognitionEvent',
      responses: { 200: deliveryHistoryOut },
    },
    async ({ params }, req, res) => {
      const row = await findVisible(req, params.id);
      res.json({ failures: await failedTries(ctx.db.sequelize, row.id) });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/recognition/events/:id/snapshot',
      summary: 'The snapshot the device sent with the event (JPEG)',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'recognitionEvent',
      responses: { 200: { mediaType: 'image/jpeg' } },
    },
    async ({ params }, req, res) => {
      const row = await findVisible(req, params.id);
      const bytes = row.snapshotSha256 ? await ctx.photos.read(row.snapshotSha256) : undefined;
      if (!bytes) throw httpErrors.notFound('This event has no snapshot.');
      res.type('image/jpeg').send(bytes);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/recognition/stream',
      summary:
        'Server-Sent Events: `recognition` (new events, the list item shape), `delivery` ({id, delivery}) and `sync` (sync task states) of your organization',
      tags,
      access: { kind: 'session' },
      responses: { 200: { mediaType: 'text/event-stream' } },
    },
    (_input, req, res) => {
      serveStream(ctx, req, res);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/exports/events.csv',
      summary: 'Recognition events as CSV (same filters as the list; formula cells neutralized)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      query: recognitionFilter,
      responses: { 200: { mediaType: 'text/csv' } },
    },
    async ({ query }, req, res) => {
      await ctx.audit.record({
        action: 'recognition.export',
        ...auditActor(req),
        summary: 'recognition events exported as CSV',
        message: { code: 'events_exported', params: {} },
      });
      await exportEvents(ctx, { ...filterWhere(query), ...orgWhere(req) }, res);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/recognition/retention',
      summary:
        'Days the organization’s recognition events and snapshots are kept (default 90); a superadmin may name another organization',
      tags,
      access: { kind: 'session' },
      query: retentionQuery,
      responses: { 200: retentionSetting },
    },
    async ({ query }, req, res) => {
      const organizationId = await retentionOrganization(ctx, req, query.organizationId);
      res.json({ days: await retentionDays(ctx, organizationId), organizationId });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/recognition/retention',
      summary:
        'Change how many days the organization’s recognition events are kept (its daily purge applies it); audited in that organization',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: retentionSetting,
      bodyLimit: '4kb',
      responses: { 200: retentionSetting },
    },
    async ({ body }, req, res) => {
      const organizationId = await retentionOrganization(ctx, req, body.organizationId);
      const before = await retentionDays(ctx, organizationId);
      await ctx.db.sequelize.transaction(async (transaction) => {
        await models.Organization.update(
          { eventRetentionDays: body.days, updatedAt: ctx.clock.now() },
          { where: { id: organizationId }, transaction },
        );
        await ctx.audit.record(
          {
            action: 'recognition.retention_change',
            ...auditActor(req),
            // The organization whose events it affects, whoever changed it.
            organizationId,
            target: { type: 'organization', id: organizationId },
            summary: `recognition retention ${before} → ${body.days} days`,
            message: { code: 'retention_changed', params: { before, days: body.days } },
          },
          transaction,
        );
      });
      res.json({ days: body.days, organizationId });
    },
  );
}

/**
 * The organization a retention read or change is about: the administrator's own, or (for a
 * superadmin only) the one named. Another organization answers 404 like a missing one.
 */
async function retentionOrganization(
  ctx: AppContext,
  req: Request,
  named: string | undefined,
): Promise<string> {
  const own = actingOrganization(req);
  if (named === undefined || named === own) return own;
  const scope = orgScope(req);
  const org = scope === null ? await ctx.models.Organization.findByPk(named) : null;
  if (!org) throw httpErrors.notFound('Organization not found.');
  return org.id;
}
