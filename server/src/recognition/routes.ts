import {
  DELIVERY_FAILURES_KEPT,
  deliveryHistoryOut,
  idParams,
  recognitionEventAccepted,
  recognitionEventIn,
  type RecognitionEventIn,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { bearerToken, type Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, orgWhere } from '../platform/http/scope.js';
import { failedTries } from './store/failures.js';
import { exportEvents } from './events/export.js';
import { acceptEvent } from './intake/intake.js';
import { filterWhere, toEventOut } from './events/records.js';
import {
  recognitionEventList,
  recognitionEventOut,
  recognitionFilter,
  recognitionQuery,
} from './schemas.js';
import { serveStream } from './events/stream.js';
import { registerRetentionRoutes } from './retention-routes.js';

/** A 512 KiB snapshot is ~700 KB of base64; the rest of the event is small. */
const INTAKE_BODY_LIMIT = '800kb';

export function registerRecognitionRoutes(api: Api, ctx: AppContext): void {
  registerRecognitionIntake(api, ctx);
  registerEventList(api, ctx);
  registerEventDetail(api, ctx);
  registerEventStreamAndExport(api, ctx);
  registerRetentionRoutes(api, ctx);
}

const tags = ['recognition'];

/** POST /recognition/events: what devices send, through Express and the fast path. */
function registerRecognitionIntake(api: Api, ctx: AppContext): void {
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
}

/** GET /recognition/events: the paged, filtered list. */
function registerEventList(api: Api, ctx: AppContext): void {
  const { models } = ctx;
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
}

/** GET /recognition/events/:id and its deliveries and snapshot. */
function registerEventDetail(api: Api, ctx: AppContext): void {
  const { models } = ctx;
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
}

/** The live stream and the CSV export. */
function registerEventStreamAndExport(api: Api, ctx: AppContext): void {
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
}
