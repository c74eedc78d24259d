import { idParams, photoStoredFace, photoUploadQuery } from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, visible } from '../platform/http/scope.js';
import { PHOTO_UPLOAD_TYPES, readPhotoUpload } from './upload.js';
import { checkFace, recordFace, verdictOut } from './faces/check.js';
import { registerFaceRoutes } from './faces/routes.js';
import { photoTransaction, queuedPhoto } from './intake.js';
import { unfitDevices } from './variants/person-fit.js';

/** PROTOCOL §7: a person's photo, upload and download. */
export function registerPhotoRoutes(api: Api, ctx: AppContext): void {
  const { models } = ctx;
  const tags = ['people'];

  const findPerson = async (req: Request, id: string) =>
    visible(req, await models.Person.findByPk(id), 'Person');

  api.add(
    {
      method: 'put',
      path: '/people/:id/photo',
      summary:
        'Set a person’s photo: a JPEG or PNG as the raw body, as multipart/form-data (file field "photo") or as JSON {"photo":"<base64>"}; at most 5 MB. Stored as a JPEG without metadata, longest side ≤ 1024 px.',
      tags,
      access: { kind: 'session' },
      params: idParams,
      query: photoUploadQuery,
      resource: 'person',
      bodyLimit: false,
      rawBody: PHOTO_UPLOAD_TYPES,
      responses: { 200: photoStoredFace },
    },
    async ({ params, query }, req, res) => {
      // Scope first: another organization's person is a 404 before the upload is even read.
      const subject = await findPerson(req, params.id);
      // Bounded (issue 32): refused at once when full, before the body is even read.
      const { normalized, face } = await queuedPhoto(
        ctx,
        res,
        () => readPhotoUpload(req, res),
        async (upload) => {
          const normalized = await ctx.photos.normalize(upload);
          const face = await checkFace(ctx, normalized, {
            organizationId: subject.organizationId,
            personId: subject.id,
            acceptedBy: query.acceptFace ? req.auth!.admin.username : null,
          });
          return { normalized, face };
        },
      );
      const { sha256, previous } = await photoTransaction(ctx, async (transaction) => {
        const person = visible(
          req,
          await models.Person.findByPk(params.id, { transaction, lock: transaction.LOCK.UPDATE }),
          'Person',
        );
        const stored = await ctx.photos.save(normalized, transaction);
        const before = person.photoSha256;
        if (before !== stored.sha256) {
          await person.update(
            {
              photoSha256: stored.sha256,
              version: person.version + 1,
              updatedAt: ctx.clock.now(),
            },
            { transaction },
          );
        }
        await recordFace(
          ctx,
          face,
          {
            personId: person.id,
            organizationId: person.organizationId,
            photoSha256: stored.sha256,
            replace: true,
          },
          auditActor(req),
          transaction,
        );
        const change = before === stored.sha256 ? 'unchanged' : before ? 'replaced' : 'set';
        await ctx.audit.record(
          {
            action: 'person.photo',
            target: { type: 'person', id: person.id },
            summary:
              change === 'unchanged'
                ? 'photo uploaded again (unchanged)'
                : change === 'replaced'
                  ? 'photo replaced'
                  : 'photo set',
            message: { code: 'photo_stored', params: { change } },
            ...auditActor(req),
          },
          transaction,
        );
        return { sha256: stored.sha256, previous: before };
      });
      if (previous && previous !== sha256) await ctx.photos.releaseIfUnreferenced(previous);
      // Told now rather than when a push fails (the variant is made and kept on the way).
      const person = await findPerson(req, params.id);
      res.json({
        photoSha256: sha256,
        unfitDevices: await unfitDevices(ctx, person, sha256),
        face: face ? verdictOut(face) : null,
        lookAlikes: face?.lookAlikes ?? [],
      });
    },
  );

  registerFaceRoutes(api, ctx);

  api.add(
    {
      method: 'get',
      path: '/people/:id/photo',
      summary: 'A person’s photo (the stored JPEG)',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'person',
      responses: { 200: { mediaType: 'image/jpeg' } },
    },
    async ({ params }, req, res) => {
      const person = await findPerson(req, params.id);
      const data = person.photoSha256 ? await ctx.photos.read(person.photoSha256) : undefined;
      if (!data) {
        if (person.photoSha256) {
          ctx.logger.warn({ personId: person.id }, 'photo file missing from the file store');
        }
        throw httpErrors.notFound('This person has no photo.');
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
