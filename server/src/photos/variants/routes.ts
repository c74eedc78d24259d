import { idParams, photoFit } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { Api } from '../../platform/http/api.js';
import { visible } from '../../platform/http/scope.js';
import { unfitDevices } from './person-fit.js';

/** The person page's warning: the devices of the person that cannot take their photo. */
export function registerPhotoVariantRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/people/:id/photo/fit',
      summary:
        'The devices that will receive this person but cannot take their photo (too small for the device’s minimum side, or not reducible to its byte limit), with the reason',
      tags: ['people'],
      access: { kind: 'session' },
      params: idParams,
      resource: 'person',
      responses: { 200: photoFit },
    },
    async ({ params }, req, res) => {
      const person = visible(req, await ctx.models.Person.findByPk(params.id), 'Person');
      res.json({
        unfitDevices: person.photoSha256 ? await unfitDevices(ctx, person, person.photoSha256) : [],
      });
    },
  );
}
