import { idParams, personFaceOut } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { Api } from '../../platform/http/api.js';
import { visible } from '../../platform/http/scope.js';
import { descriptorsOf, lookAlikes, readFace } from './store.js';

/** The face check of a person's current photo, for the person page. */
export function registerFaceRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/people/:id/face',
      summary:
        'The face check of a person’s photo (faces found, box, score, sharpness, problems, who accepted it) and the people whose face looks like it',
      tags: ['people'],
      access: { kind: 'session' },
      params: idParams,
      resource: 'person',
      responses: { 200: personFaceOut },
    },
    async ({ params }, req, res) => {
      const person = visible(req, await ctx.models.Person.findByPk(params.id), 'Person');
      const sha = person.photoSha256;
      const check = sha ? await readFace(ctx, person.id, sha) : null;
      const descriptor = sha ? (await descriptorsOf(ctx, person.id, [sha])).get(sha) : undefined;
      res.json({
        check,
        lookAlikes: descriptor
          ? await lookAlikes(ctx, person.organizationId, descriptor, person.id)
          : [],
      });
    },
  );
}
