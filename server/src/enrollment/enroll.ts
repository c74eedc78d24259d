import { ErrorCode } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { HttpError } from '../platform/http/errors.js';
import type { NormalizedPhoto } from '../photos/normalize.js';
import { checkedName, createPerson, findByIdNumber, type Actor } from '../people/service.js';
import { proposeChange } from './changes.js';
import { assertMayGrant } from './rights.js';
import { recordFace, type FaceVerdict } from '../photos/faces/check.js';
import { photoTransaction } from '../photos/intake.js';

/** The enrollment terminal that sent the person, and the organization it enrolls into. */
export interface Terminal {
  id: string;
  organizationId: string;
  ip: string;
}

export interface Enrollment {
  name: string;
  idNumber: string;
  spaceIds?: string[];
  photo: NormalizedPhoto;
  /** The photo's face check (photos/faces), stored with the person or the held change. */
  face?: FaceVerdict | undefined;
}

export interface EnrollmentResult {
  id: string;
  created: boolean;
  /** For an existing person: the change held for review, or null when nothing changed. */
  changeId?: string | null;
}

/**
 * Creates the person, or — when the ID number already exists in the terminal's organization —
 * holds the name and photo change for an administrator's review (changes.ts). Only spaces an
 * administrator assigned to the terminal may be granted (403 naming the others), and space
 * access is set on creation only: a terminal at a door must not change what an administrator
 * granted an existing person. Photo, person or change, space access and audit entry are one
 * transaction: nothing is left behind when any of it is refused.
 */
export async function enroll(
  ctx: AppContext,
  terminal: Terminal,
  input: Enrollment,
): Promise<EnrollmentResult> {
  const actor: Actor = {
    actor: { id: null, name: `terminal ${terminal.id}` },
    organizationId: terminal.organizationId,
    ip: terminal.ip,
  };
  try {
    await assertMayGrant(ctx, terminal, input.spaceIds ?? []);
  } catch (err) {
    await ctx.audit.record({
      ...actor,
      action: 'enrollment.spaces_refused',
      outcome: 'denied',
      target: { type: 'terminal', id: terminal.id },
      summary: `terminal ${terminal.id} asked to grant spaces it was not assigned: ${(input.spaceIds ?? []).join(', ')}`,
      message: {
        code: 'enrollment_spaces_refused',
        params: { terminal: terminal.id, spaces: (input.spaceIds ?? []).join(', ') },
      },
    });
    throw err;
  }
  const attempt = () =>
    photoTransaction(ctx, async (transaction) => {
      const photo = await ctx.photos.save(input.photo, transaction);
      const existing = await findByIdNumber(
        ctx,
        terminal.organizationId,
        input.idNumber,
        transaction,
      );
      if (existing) {
        const change = await proposeChange(
          ctx,
          terminal,
          existing,
          { name: checkedName(input.name), photoSha256: photo.sha256 },
          actor,
          transaction,
        );
        await recordFace(
          ctx,
          input.face,
          {
            personId: existing.id,
            organizationId: terminal.organizationId,
            photoSha256: photo.sha256,
            replace: false,
          },
          actor,
          transaction,
        );
        return { id: existing.id, created: false, changeId: change?.id ?? null };
      }
      const person = await createPerson(
        ctx,
        terminal.organizationId,
        {
          name: input.name,
          idNumber: input.idNumber,
          ...(input.spaceIds && { spaceIds: input.spaceIds }),
          photoSha256: photo.sha256,
        },
        actor,
        transaction,
      );
      await recordFace(
        ctx,
        input.face,
        {
          personId: person.id,
          organizationId: terminal.organizationId,
          photoSha256: photo.sha256,
          replace: true,
        },
        actor,
        transaction,
      );
      return { id: person.id, created: true };
    });
  try {
    return await attempt();
  } catch (err) {
    // Two enrollments of one new ID number at once: the unique index refuses the second
    // insert (409); run it again and it holds a change to the person the first one created.
    if (err instanceof HttpError && err.code === ErrorCode.conflict) return attempt();
    throw err;
  }
}
