import { z } from 'zod';
import { idParams, listOf, pageQuery, spaceCreate, spaceOut, spaceUpdate, uuid } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgWhere, visible, actingOrganization } from '../platform/http/scope.js';
import { httpErrors } from '../platform/http/errors.js';
import { ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { createSpace, deleteSpace, findSpace, toSpaceOut, updateSpace } from './service.js';
import { loadSpaceTree } from './tree.js';

const spaceListQuery = pageQuery.extend({
  /** Only the children of this space; 'root' for top-level spaces. */
  parentId: z.union([uuid, z.literal('root')]).optional(),
});

/** PROTOCOL §7 `GET, POST /api/spaces`, and reading, renaming, moving and deleting one space. */
export function registerSpaceRoutes(api: Api, ctx: AppContext): void {
  registerSpaceCollection(api, ctx);
  registerSpaceReads(api, ctx);
  registerSpaceChanges(api, ctx);
}

const tags = ['spaces'];
const access = { kind: 'session' } as const;
const scopeOf = (req: Parameters<typeof orgWhere>[0]) => orgWhere(req).organizationId ?? null;

/** GET and POST /spaces: the list and a new space. */
function registerSpaceCollection(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/spaces',
      summary: 'Spaces of the administrator’s organization, by name',
      tags,
      access,
      query: spaceListQuery,
      responses: { 200: listOf(spaceOut) },
    },
    async ({ query }, req, res) => {
      const where = {
        ...orgWhere(req),
        ...(query.parentId && { parentId: query.parentId === 'root' ? null : query.parentId }),
      };
      const { rows, count } = await ctx.models.Space.findAndCountAll({
        where,
        order: [
          ['name', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      res.json({ items: rows.map(toSpaceOut), total: count });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/spaces',
      summary: 'Create a space (at the root, or under parentId)',
      tags,
      access,
      body: spaceCreate,
      responses: { 201: spaceOut },
    },
    async ({ body }, req, res) => {
      let organizationId = actingOrganization(req);
      // A superadmin may build another organization's tree: the parent decides where.
      if (body.parentId && !orgWhere(req).organizationId) {
        const parent = await findSpace(ctx, null, body.parentId);
        if (!parent) throw httpErrors.notFound('Parent space not found.');
        organizationId = parent.organizationId;
      }
      res.status(201).json(await createSpace(ctx, organizationId, body, auditActor(req)));
    },
  );
}

/** GET /spaces/:id and its ancestors. */
function registerSpaceReads(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/spaces/:id',
      summary: 'One space',
      tags,
      access,
      params: idParams,
      resource: 'space',
      responses: { 200: spaceOut },
    },
    async ({ params }, req, res) => {
      const row = visible(req, await ctx.models.Space.findByPk(params.id), 'Space');
      sendTagged(res, toSpaceOut(row));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/spaces/:id/ancestors',
      summary: 'The spaces above this one, root first (a breadcrumb)',
      tags,
      access,
      params: idParams,
      resource: 'space',
      responses: { 200: z.object({ items: z.array(spaceOut) }) },
    },
    async ({ params }, req, res) => {
      const row = visible(req, await ctx.models.Space.findByPk(params.id), 'Space');
      const ids = (await loadSpaceTree(ctx, row.organizationId))
        .spaceAndAncestors(row.id)
        .slice(1)
        .reverse();
      const rows = await ctx.models.Space.findAll({ where: { id: ids } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      res.json({ items: ids.flatMap((id) => (byId.has(id) ? [toSpaceOut(byId.get(id)!)] : [])) });
    },
  );
}

/** PATCH and DELETE /spaces/:id. */
function registerSpaceChanges(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'patch',
      path: '/spaces/:id',
      summary: 'Rename and/or move a space (parentId null moves it to the root)',
      tags,
      access,
      params: idParams,
      body: spaceUpdate,
      resource: 'space',
      responses: { 200: spaceOut },
    },
    async ({ params, body }, req, res) => {
      const space = await updateSpace(
        ctx,
        scopeOf(req),
        params.id,
        body,
        auditActor(req),
        undefined,
        ifMatchOf(req),
      );
      sendTagged(res, space);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/spaces/:id',
      summary: 'Delete a space nothing depends on (409 says what still does)',
      tags,
      access,
      params: idParams,
      resource: 'space',
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      await deleteSpace(ctx, scopeOf(req), params.id, auditActor(req));
      res.status(204).end();
    },
  );
}
