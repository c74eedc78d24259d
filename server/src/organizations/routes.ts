import { idParams, organizationCreate, organizationList, organizationOut } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { auditActor, orgScope } from '../http/scope.js';
import { createOrganization, listOrganizations, renameOrganization } from './service.js';

export { organizationOut };

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
      res.json(await listOrganizations(ctx, orgScope(req)));
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
      res.json(await renameOrganization(ctx, orgScope(req), params.id, body.name, auditActor(req)));
    },
  );
}
