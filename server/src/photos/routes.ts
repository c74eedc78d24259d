import { idParams, photoStoredFace, photoUploadQuery } from '@svc/shared';
import type { Transaction } from 'sequelize';
import type { Request, Response } from 'express';
import type { AppContext } from '../platform/context.js';
import type { PersonRow } from '../platform/db/business-models.js';
import type { Api } from '../platform/http/api.js';
import { httpErrors } from '../platform/http/errors.js';
import { auditActor, visible } from '../platform/http/scope.js';
import { PHOTO_UPLOAD_TYPES, readPhotoUpload } from './upload.js';
import { checkFace, recordFace, verdictOut, type FaceVerdict } from './faces/check.js';
import { registerFaceRoutes } from './faces/routes.js';
import { photoTransaction, queuedPhoto } from './intake.js';
import type { NormalizedPhoto } from './normalize.js';
import { unfitDevices } from './variants/person-fit.js';

/** PROTOCOL §7: a person's photo, upload and download. */
export function registerPhotoRoutes(api: Api, ctx: AppContext): void {
  registerPhotoUpload(api, ctx);
  registerFaceRoutes(api, ctx);
  registerPhotoDownload(api, ctx);
}

const tags = ['people'];

const findPerson = async (ctx: AppContext, req: Request, id: string) =>
  visible(req, await ctx.models.Person.findByPk(id), 'Person');

/** An upload decoded, normalized and face-checked, ready to store. */
interface CheckedPhoto {
  normalized: NormalizedPhoto;
  face: FaceVerdict | undefined;
}

/** PUT /people/:id/photo: read and check, store, then say what the devices will make of it. */
function registerPhotoUpload(api: Api, ctx: AppContext): void {
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
      const subject = await findPerson(ctx, req, params.id);
      const checked = await readAndCheck(ctx, req, res, subject, query.acceptFace);
      const { sha256, previous } = await photoTransaction(ctx, (transaction) =>
        storePhoto(ctx, req, params.id, checked, transaction),
      );
      if (previous && previous !== sha256) await ctx.photos.releaseIfUnreferenced(previous);
      // Told now rather than when a push fails (the variant is made and kept on the way).
      const person = await findPerson(ctx, req, params.id);
      res.json({
        photoSha256: sha256,
        unfitDevices: await unfitDevices(ctx, person, sha256),
        face: checked.face ? verdictOut(checked.face) : null,
        lookAlikes: checked.face?.lookAlikes ?? [],
      });
    },
  );
}

/** The upload's first step: the body read, normalized and face-checked in the bounded queue. */
async function readAndCheck(
  ctx: AppContext,
  req: Request,
  res: Response,
  subject: PersonRow,
  acceptFace: boolean,
): Promise<CheckedPhoto> {
  // Bounded (issue 32): refused at once when full, before the body is even read.
  return queuedPhoto(
    ctx,
    res,
    () => readPhotoUpload(req, res),
    async (upload) => {
      const normalized = await ctx.photos.normalize(upload);
      const face = await checkFace(ctx, normalized, {
        organizationId: subject.organizationId,
        personId: subject.id,
        acceptedBy: acceptFace ? req.auth!.admin.username : null,
      });
      return { normalized, face };
    },
  );
}

/**
 * The upload's second step, in the photo-write transaction: the person locked, the photo saved
 * and linked, its face recorded and the change audited. Answers the new and the previous hash.
 */
async function storePhoto(
  ctx: AppContext,
  req: Request,
  personId: string,
  { normalized, face }: CheckedPhoto,
  transaction: Transaction,
): Promise<{ sha256: string; previous: string | null }> {
  const person = visible(
    req,
    await ctx.models.Person.findByPk(personId, { transaction, lock: transaction.LOCK.UPDATE }),
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
  await auditPhotoChange(ctx, req, person.id, before, stored.sha256, transaction);
  return { sha256: stored.sha256, previous: before };
}

/** Whether the photo was set, replaced or uploaded again unchanged, in the audit log. */
async function auditPhotoChange(
  ctx: AppContext,
  req: Request,
  personId: string,
  before: string | null,
  sha256: string,
  transaction: Transaction,
): Promise<void> {
  const change = before === sha256 ? 'unchanged' : before ? 'replaced' : 'set';
  await ctx.audit.record(
    {
      action: 'person.photo',
      target: { type: 'person', id: personId },
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
}

/** GET /people/:id/photo: the stored JPEG. */
function registerPhotoDownload(api: Api, ctx: AppContext): void {
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
      const person = await findPerson(ctx, req, params.id);
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
