import {
  displayName,
  enrollmentAnswerFace,
  enrollmentPerson,
  type EnrollmentNotice,
  ErrorCode,
  idNumber,
  LOOK_ALIKE_NOTICE,
  LOOK_ALIKE_SAVED_NOTICE,
  uuid,
} from '@svc/shared';
import { z } from 'zod';
import type { AppContext } from '../platform/context.js';
import { clientIp } from '../auth/middleware.js';
import { bearerToken, type Api } from '../platform/http/api.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { BASE64_PHOTO_JSON_LIMIT, decodeBase64Photo } from '../photos/upload.js';
import { registerEnrollmentAdminRoutes } from './admin-routes.js';
import { enroll } from './enroll.js';
import { findByIdNumber } from '../people/service.js';
import { checkFace, type FaceVerdict } from '../photos/faces/check.js';
import { requestGone } from '../photos/intake.js';

/**
 * The §3 body, held to the same rules as an administrator's person (the name, ID-number characters,
 * space ids), so an enrolled person is always one the console can edit.
 */
const enrollmentBody = enrollmentPerson.extend({
  name: displayName,
  idNumber,
  spaceIds: z.array(uuid).max(256).optional(),
});

/**
 * PROTOCOL §3: an enrollment terminal creates a person, or asks to change one by ID number;
 * and the administrator's side: what each terminal may grant, and the changes held for review.
 */
export function registerEnrollmentRoutes(api: Api, ctx: AppContext): void {
  registerTerminalEnrollment(api, ctx);
  registerEnrollmentAdminRoutes(api, ctx);
}

function registerTerminalEnrollment(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/enrollment/persons',
      summary:
        'Enrollment terminal: create a person (201); for an existing ID number, a name or photo change is held for review (200, pending: true); spaceIds only those assigned to the terminal (else 403), applied on creation only',
      tags: ['enrollment'],
      access: { kind: 'terminal' },
      body: enrollmentBody,
      bodyLimit: BASE64_PHOTO_JSON_LIMIT,
      responses: { 200: enrollmentAnswerFace, 201: enrollmentAnswerFace },
    },
    async ({ body }, req, res) => {
      const node = await ctx.discovery.store.findByToken(bearerToken(res), clientIp(req));
      if (!node) {
        throw new HttpError(
          401,
          ErrorCode.unauthorized,
          'Unknown or revoked terminal token, or not used from the address it was given to.',
        );
      }
      if (node.kind !== 'enrollment') {
        throw httpErrors.forbidden(
          `Terminal ${node.id} is a ${node.kind} terminal; only enrollment terminals may enroll people.`,
        );
      }
      const organizationId = node.organizationId;
      if (!organizationId) {
        throw httpErrors.forbidden(
          `Terminal ${node.id} was configured before terminals were tied to an organization: an administrator must push the central address to it again.`,
        );
      }
      // The same bounded queue as uploads (issue 32): a terminal's token is no way around it.
      const { photo, face } = await ctx.photoWork.checks.run(
        async () => {
          // Refused photos (400/413/415) end here, before anything is written.
          const photo = await ctx.photos.normalize(decodeBase64Photo(body.photo));
          // A terminal cannot accept a failing face: 422 with the reasons, nothing written.
          const existing = await findByIdNumber(ctx, organizationId, body.idNumber);
          const face = await checkFace(ctx, photo, {
            organizationId,
            personId: existing?.id ?? null,
            spaceIds: existing?.spaceIds ?? body.spaceIds ?? [],
          });
          return { photo, face };
        },
        { signal: requestGone(res) },
      );
      const result = await enroll(
        ctx,
        { id: node.id, organizationId, ip: clientIp(req) },
        { name: body.name, idNumber: body.idNumber, spaceIds: body.spaceIds, photo, face },
      );
      const held = !result.created && !!result.changeId;
      const warn = await lookAlikeNotice(ctx, node.id, organizationId, result.id, face, held);
      if (result.created) {
        res.status(201).json({ id: result.id, ...warn });
        return;
      }
      res.status(200).json({
        id: result.id,
        pending: !!result.changeId,
        ...(result.changeId && { changeId: result.changeId }),
        ...warn,
      });
    },
  );
}

/**
 * The terminal hears only that the face looks like someone (no name, ID number or distance:
 * a token must not become a face search over its organization). Who it looks like is in the
 * site: the person's face check lists the look-alikes, and the audit entry names their ids.
 */
async function lookAlikeNotice(
  ctx: AppContext,
  terminalId: string,
  organizationId: string,
  personId: string,
  face: FaceVerdict | undefined,
  held: boolean,
): Promise<{ notice: EnrollmentNotice } | undefined> {
  const others = face?.lookAlikes ?? [];
  if (others.length === 0) return undefined;
  await ctx.audit.record({
    action: 'enrollment.look_alike',
    organizationId,
    actor: { id: null, name: `terminal ${terminalId}` },
    target: { type: 'person', id: personId },
    summary: `enrolled face looks like ${others.length} other ${others.length === 1 ? 'person' : 'people'} (${others.map((o) => o.personId).join(', ')})${held ? ': review pending' : ''}`,
    message: {
      code: held ? 'enrollment_look_alike' : 'enrollment_look_alike_saved',
      params: { count: others.length, people: others.map((o) => o.personId).join(', ') },
    },
  });
  return { notice: { ...(held ? LOOK_ALIKE_NOTICE : LOOK_ALIKE_SAVED_NOTICE) } };
}
