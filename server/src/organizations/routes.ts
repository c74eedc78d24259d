import { idParams, organizationCreate, organizationList, organizationOut } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import type { Request } from 'express';
import { auditActor } from '../platform/http/scope.js';
import { ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { createOrganization, listOrganizations, renameOrganization } from './service.js';

export { organizationOut };

/**
 * The organizations an administrator manages: every one for a superadmin, whichever the session
 * works in (the site's switcher lists them all), else their own.
 */
function organizationsOf(req: Request): string | null {
  const admin = req.auth!.admin;
  return admin.role === 'superadmin' ? null : admin.organizationId;
}

/** PROTOCOL §7 `GET /api/organizations`: a superadmin sees all, others their own. */
export function registerOrganizationRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/organizations',
      summary: 'Organizations the administrator may see',
      tags: ['organizations'],
      access: { kind: 'session' },
      responses: { 200: organizationList },
    },
    async (_input, req, res) => {
      res.json(await listOrganizations(ctx, organizationsOf(req)));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/organizations',
      summary: 'Create an organization (superadmin)',
      tags: ['organizations'],
      access: { kind: 'session', minRole: 'superadmin' },
      body: organizationCreate,
      responses: { 201: organizationOut },
    },
    async ({ body }, req, res) => {
      res.status(201).json(await createOrganization(ctx, body.name, auditActor(req)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/organizations/:id',
      summary: 'Rename an organization (a superadmin, or an admin of that organization)',
      tags: ['organizations'],
      access: { kind: 'session' },
      params: idParams,
      body: organizationCreate,
      resource: 'organization',
      responses: { 200: organizationOut },
    },
    async ({ params, body }, req, res) => {
      const scope = organizationsOf(req);
      const actor = auditActor(req);
      sendTagged(
        res,
        await renameOrganization(ctx, scope, params.id, body.name, actor, ifMatchOf(req)),
      );
    },
  );
}
