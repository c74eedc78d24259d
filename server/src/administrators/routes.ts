import { z } from 'zod';
import {
  adminRole,
  administratorCreate,
  administratorOut,
  administratorUpdate,
  administratorWithPassword,
  idParams,
  listOf,
  pageQuery,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { actingOrganization, auditActor, orgScope } from '../platform/http/scope.js';
import {
  createAdministrator,
  findAdministrator,
  listAdministrators,
  resetPassword,
  toAdministratorOut,
  updateAdministrator,
} from './service.js';

export { toAdministratorOut };

const tags = ['administrators'];

const administratorsQuery = pageQuery.extend({
  /** Username prefix. */
  q: z
    .string()
    .trim()
    .toLowerCase()
    .max(64)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
    .optional(),
  role: adminRole.optional(),
});

/**
 * `/api/administrators`: accounts of the administrator's organization (a superadmin: the one
 * worked in, or all).
 * Reading them needs `admin` too — operators have no business with accounts. One-time
 * passwords appear only in the create and reset answers; the audit log never holds one.
 */
export function registerAdministratorRoutes(api: Api, ctx: AppContext): void {
  registerAdministratorCollection(api, ctx);
  registerAdministratorItem(api, ctx);
  registerPasswordReset(api, ctx);
}

/** GET and POST /administrators: the list and a new account. */
function registerAdministratorCollection(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/administrators',
      summary: 'Administrator accounts, paged; filters: q (username prefix), role',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      query: administratorsQuery,
      responses: { 200: listOf(administratorOut) },
    },
    async ({ query }, req, res) => {
      res.json(await listAdministrators(ctx, orgScope(req), query));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/administrators',
      summary: 'Create an administrator; the answer carries a one-time password (shown once)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: administratorCreate,
      bodyLimit: '16kb',
      responses: { 201: administratorWithPassword },
    },
    async ({ body }, req, res) => {
      // Without a named organization the account joins the one worked in.
      const organizationId = body.organizationId ?? actingOrganization(req);
      const created = await createAdministrator(
        ctx,
        req.auth!.admin,
        { ...body, organizationId },
        auditActor(req),
      );
      res.status(201).json(created);
    },
  );
}

/** GET and PATCH /administrators/:id. */
function registerAdministratorItem(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/administrators/:id',
      summary: 'One administrator account',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      resource: 'administrator',
      responses: { 200: administratorOut },
    },
    async ({ params }, req, res) => {
      sendTagged(res, toAdministratorOut(await findAdministrator(ctx, orgScope(req), params.id)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/administrators/:id',
      summary:
        'Rename, change the role of, disable or enable an administrator (disabling ends their sessions)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      body: administratorUpdate,
      resource: 'administrator',
      responses: { 200: administratorOut },
    },
    async ({ params, body }, req, res) => {
      sendTagged(
        res,
        await updateAdministrator(
          ctx,
          req.auth!.admin,
          orgScope(req),
          params.id,
          body,
          auditActor(req),
          ifMatchOf(req),
        ),
      );
    },
  );
}

/** POST /administrators/:id/password-reset: a new one-time password. */
function registerPasswordReset(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/administrators/:id/password-reset',
      summary:
        'New one-time password (in the answer, shown once); change required at sign-in, sessions ended, lockout cleared',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      resource: 'administrator',
      responses: { 200: administratorWithPassword },
    },
    async ({ params }, req, res) => {
      res.json(
        await resetPassword(ctx, req.auth!.admin, orgScope(req), params.id, auditActor(req)),
      );
    },
  );
}
