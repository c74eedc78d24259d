import type { Request } from 'express';
import {
  idParams,
  peopleList,
  peopleQuery,
  personCreate,
  personOut,
  personUpdate,
  type PeopleQuery,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgWhere, actingOrganization } from '../platform/http/scope.js';
import { httpErrors } from '../platform/http/errors.js';
import { ifMatchOf, sendTagged } from '../platform/http/etag.js';
import { loadSpaceTree } from '../spaces/tree.js';
import {
  createPerson,
  deletePerson,
  findPerson,
  spaceIdsOf,
  toPersonOut,
  updatePerson,
} from './service.js';
import { searchPeople } from './store/search.js';
import { resolveValidity } from './validity.js';

const scopeOf = (req: Request) => orgWhere(req).organizationId ?? null;

/**
 * The spaces a `spaceId` filter stands for: the space (and, if asked, those below it) when the
 * administrator may see it; [] otherwise, so another organization's space matches nobody.
 */
async function filterSpaces(
  ctx: AppContext,
  organizationId: string | null,
  query: PeopleQuery,
): Promise<string[] | undefined> {
  if (!query.spaceId) return undefined;
  const space = await ctx.models.Space.findOne({
    attributes: ['id', 'organizationId'],
    where: organizationId ? { id: query.spaceId, organizationId } : { id: query.spaceId },
  });
  if (!space) return [];
  if (query.includeDescendants !== 'true') return [space.id];
  const tree = await loadSpaceTree(ctx, space.organizationId);
  return [space.id, ...tree.descendantsOf(space.id)];
}

/** PROTOCOL §7 `GET, POST /api/people` and `GET, PATCH, DELETE /api/people/{id}`. */
export function registerPeopleRoutes(api: Api, ctx: AppContext): void {
  registerPeopleCollection(api, ctx);
  registerPersonItem(api, ctx);
}

const tags = ['people'];
const access = { kind: 'session' } as const;

/** GET and POST /people: the search and a new person. */
function registerPeopleCollection(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/people',
      summary:
        'Search people: q is a name prefix (case and accents ignored) or an ID-number prefix; ' +
        'total stops at 10,000 (totalCapped)',
      tags,
      access,
      query: peopleQuery,
      responses: { 200: peopleList },
    },
    async ({ query }, req, res) => {
      const organizationId = scopeOf(req);
      const page = await searchPeople(ctx, {
        organizationId,
        q: query.q,
        spaceIds: await filterSpaces(ctx, organizationId, query),
        enabled: query.enabled === undefined ? undefined : query.enabled === 'true',
        sort: query.sort,
        page: query.page,
        pageSize: query.pageSize,
      });
      const rows = await ctx.models.Person.findAll({ where: { id: page.ids } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const spaces = await spaceIdsOf(ctx, page.ids);
      res.json({
        // A person deleted between the two reads is simply left out.
        items: page.ids.flatMap((id) => {
          const row = byId.get(id);
          return row ? [toPersonOut(row, spaces.get(id) ?? [])] : [];
        }),
        total: page.total,
        totalCapped: page.totalCapped,
      });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/people',
      summary: 'Create a person (ID number unique in the organization)',
      tags,
      access,
      body: personCreate,
      responses: { 201: personOut },
    },
    async ({ body }, req, res) => {
      const person = await createPerson(
        ctx,
        actingOrganization(req),
        await resolveValidity(ctx, body),
        auditActor(req),
      );
      res.status(201).json(person);
    },
  );
}

/** GET, PATCH and DELETE /people/:id. */
function registerPersonItem(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/people/:id',
      summary: 'One person',
      tags,
      access,
      params: idParams,
      resource: 'person',
      responses: { 200: personOut },
    },
    async ({ params }, req, res) => {
      const person = await findPerson(ctx, scopeOf(req), params.id);
      if (!person) throw httpErrors.notFound('Person not found.');
      sendTagged(res, person);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/people/:id',
      summary: 'Change any subset of a person’s fields (spaceIds replaces the set)',
      tags,
      access,
      params: idParams,
      body: personUpdate,
      resource: 'person',
      responses: { 200: personOut },
    },
    async ({ params, body }, req, res) => {
      const actor = auditActor(req);
      const ifMatch = ifMatchOf(req);
      sendTagged(
        res,
        await updatePerson(
          ctx,
          scopeOf(req),
          params.id,
          await resolveValidity(ctx, body),
          actor,
          undefined,
          ifMatch,
        ),
      );
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/people/:id',
      summary:
        'Erase a person: the row, space access and photo (the audit log keeps only that it happened)',
      tags,
      access,
      params: idParams,
      resource: 'person',
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      await deletePerson(ctx, scopeOf(req), params.id, auditActor(req));
      res.status(204).end();
    },
  );
}
