import {
  enrollmentChangeFaceList,
  enrollmentChangeFaceOut,
  enrollmentChangeOut,
  enrollmentChangePhotoQuery,
  enrollmentChangesQuery,
  idParams,
  terminalIdParams,
  terminalSpaces,
  terminalSpacesUpdate,
} from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, actingOrganization, orgScope } from '../platform/http/scope.js';
import { decideChange, findChange, listChanges, toChangeOut } from './changes.js';
import { changeDistances } from '../photos/faces/store.js';
import { manageableTerminal, setTerminalSpaces, terminalSpaces as spacesOf } from './rights.js';

/** The caller's organization scope: null for a superadmin (every organization). */
const scopeOf = (req: Request) => orgScope(req);

/** Administrator API: the spaces each enrollment terminal may grant, and the review queue. */
export function registerEnrollmentAdminRoutes(api: Api, ctx: AppContext): void {
  registerTerminalSpaces(api, ctx);
  registerChangeReads(api, ctx);
  registerChangeDecisions(api, ctx);
}

const tags = ['enrollment'];

/** GET and PUT /terminals/:id/spaces: what an enrollment terminal may grant. */
function registerTerminalSpaces(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/terminals/:id/spaces',
      summary: 'The spaces an enrollment terminal may grant to the people it enrolls',
      tags,
      access: { kind: 'session' },
      params: terminalIdParams,
      responses: { 200: terminalSpaces },
    },
    async ({ params }, req, res) => {
      const node = await manageableTerminal(ctx, req.auth!.admin, params.id);
      res.json(await spacesOf(ctx, node, actingOrganization(req)));
    },
  );

  api.add(
    {
      method: 'put',
      path: '/terminals/:id/spaces',
      summary:
        'Set the spaces an enrollment terminal may grant (none by default; any other spaceIds it sends are refused with 403)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: terminalIdParams,
      body: terminalSpacesUpdate,
      responses: { 200: terminalSpaces },
    },
    async ({ params, body }, req, res) => {
      const admin = req.auth!.admin;
      const node = await manageableTerminal(ctx, admin, params.id);
      const organizationId = node.organizationId ?? actingOrganization(req);
      res.json(await setTerminalSpaces(ctx, node, organizationId, body.spaceIds, auditActor(req)));
    },
  );
}

/** The review queue: the list, one change and its photos. */
function registerChangeReads(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/enrollment/changes',
      summary:
        'Re-enrollments held for review (name or photo changes sent by enrollment terminals), oldest first; filters: state, personId',
      tags,
      access: { kind: 'session' },
      query: enrollmentChangesQuery,
      responses: { 200: enrollmentChangeFaceList },
    },
    async ({ query }, req, res) => {
      const { items, total } = await listChanges(ctx, scopeOf(req), query);
      res.json({ items: await changeDistances(ctx, items), total });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/enrollment/changes/:id',
      summary: 'One re-enrollment change: old and new name, old and new photo hashes',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'enrollmentChange',
      responses: { 200: enrollmentChangeFaceOut },
    },
    async ({ params }, req, res) => {
      const change = toChangeOut(await findChange(ctx, scopeOf(req), params.id));
      res.json((await changeDistances(ctx, [change]))[0]);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/enrollment/changes/:id/photo',
      summary:
        'The new photo of a re-enrollment change (which=new, default) or the old one (which=old)',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'enrollmentChange',
      query: enrollmentChangePhotoQuery,
      responses: { 200: { mediaType: 'image/jpeg' } },
    },
    async ({ params, query }, req, res) => {
      const change = await findChange(ctx, scopeOf(req), params.id);
      const sha256 = query.which === 'old' ? change.oldPhotoSha256 : change.newPhotoSha256;
      const data = sha256 ? await ctx.photos.read(sha256) : undefined;
      if (!data) {
        throw httpErrors.notFound(
          query.which === 'old' ? 'The person had no photo before this change.' : 'Photo missing.',
        );
      }
      res
        .status(200)
        .set({
          'Content-Type': 'image/jpeg',
          'Content-Length': String(data.length),
          'Cache-Control': 'private, no-store',
          'X-Content-Type-Options': 'nosniff',
          'Content-Disposition': 'inline',
        })
        .end(data);
    },
  );
}

/** POST /enrollment/changes/:id/{approve,reject}. */
function registerChangeDecisions(api: Api, ctx: AppContext): void {
  for (const decision of ['approve', 'reject'] as const) {
    api.add(
      {
        method: 'post',
        path: `/enrollment/changes/:id/${decision}`,
        summary:
          decision === 'approve'
            ? 'Approve a pending re-enrollment: the new name and photo apply and reach the devices'
            : 'Reject a pending re-enrollment: the person stays as they are',
        tags,
        access: { kind: 'session', minRole: 'admin' },
        params: idParams,
        resource: 'enrollmentChange',
        responses: { 200: enrollmentChangeOut },
      },
      async ({ params }, req, res) => {
        const state = decision === 'approve' ? 'approved' : 'rejected';
        res.json(await decideChange(ctx, scopeOf(req), params.id, state, auditActor(req)));
      },
    );
  }
}
