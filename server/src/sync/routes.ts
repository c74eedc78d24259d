import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgScope, orgWhere } from '../platform/http/scope.js';
import {
  deviceSyncOut,
  devicesSyncOut,
  devicesSyncQuery,
  idParams,
  peopleSyncOut,
  peopleSyncQuery,
  personSyncOut,
  reconciliationStarted,
  retriedOut,
  syncTaskList,
  syncTaskOut,
  syncTasksQuery,
} from '@svc/shared';
import {
  deviceSync,
  listTasks,
  personSync,
  retryFailed,
  retryTask,
  startReconciliation,
} from './service.js';
import { devicesSyncCounts, peopleSyncHealth } from './overview/service.js';

const tags = ['sync'];
const access = { kind: 'session' } as const;

/** Synchronization state and controls (PROTOCOL §7 `GET /api/sync/tasks`, `/people/{id}/sync`). */
export function registerSyncRoutes(api: Api, ctx: AppContext): void {
  registerTaskRoutes(api, ctx);
  registerPeopleRoutes(api, ctx);
  registerDeviceSyncRoutes(api, ctx);
}

/** The tasks: listed, and one tried again. */
function registerTaskRoutes(api: Api, ctx: AppContext): void {
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
      res.json(await listTasks(ctx, orgScope(req), query));
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
      res.json(await retryTask(ctx, orgScope(req), params.id, auditActor(req)));
    },
  );
}

/** People's synchronization: one person on every device, a page of people counted. */
function registerPeopleRoutes(api: Api, ctx: AppContext): void {
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
      res.json(await personSync(ctx, orgScope(req), params.id));
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
}

/** Devices' synchronization: counted, one device in detail, its failed tasks retried, its reconciliation. */
function registerDeviceSyncRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/sync/devices',
      summary:
        'Synchronization of up to 100 devices at once (`ids`, comma-separated): their tasks counted by state',
      tags,
      access,
      query: devicesSyncQuery,
      responses: { 200: devicesSyncOut },
    },
    async ({ query }, req, res) => {
      res.json(await devicesSyncCounts(ctx, orgWhere(req), query.ids));
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
      res.json(await deviceSync(ctx, orgScope(req), params.id));
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
      res.json({ retried: await retryFailed(ctx, orgScope(req), params.id, auditActor(req)) });
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
      res
        .status(202)
        .json(await startReconciliation(ctx, orgScope(req), params.id, auditActor(req)));
    },
  );
}
