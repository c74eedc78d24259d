import {
  ErrorCode,
  describeMessage,
  formatEnglish,
  type FaceCheckOut,
  type LookAlikeOut,
  type Message,
} from '@svc/shared';
import type { Transaction } from 'sequelize';
import type { AuditEntry } from '../../audit/audit.js';
import type { AppContext } from '../../platform/context.js';
import { HttpError } from '../../platform/http/errors.js';
import { findByIdNumber } from '../../people/service.js';
import type { NormalizedPhoto } from '../normalize.js';
import type { FaceAnalysis } from './detector.js';
import { faceReasons } from './rules.js';
import { faceRequirement, lookAlikes, saveFace } from './store.js';

type Deps = Pick<AppContext, 'db' | 'models' | 'config' | 'faces' | 'clock' | 'audit'>;

/** The face check of one provided photo, before it is stored. */
export interface FaceVerdict {
  analysis: FaceAnalysis;
  /** What is wrong, by message code and values (a client words them); empty when it passed. */
  reasons: Message[];
  /** The same in the server's English (logs, audit summaries, API users). */
  problems: string[];
  /** The administrator who accepted the photo despite its problems. */
  acceptedBy: string | null;
  lookAlikes: LookAlikeOut[];
  checkedAt: Date;
}

export interface FaceSubject {
  organizationId: string;
  /** The person the photo is for, when they exist already (not compared with themselves). */
  personId?: string | null;
  /**
   * The spaces the person will have: their devices set the minimum face size. Absent: the
   * spaces `personId` has now (none for a new person).
   */
  spaceIds?: readonly string[];
  /** An administrator accepting a photo that fails the check (audited when stored). */
  acceptedBy?: string | null;
}

/**
 * Checks a photo for one usable face (issue 26): refused with 422 `face_check_failed` and the
 * reasons, unless an administrator accepts it. Undefined when FACE_CHECK is off.
 */
export async function checkFace(
  deps: Deps,
  photo: NormalizedPhoto,
  subject: FaceSubject,
): Promise<FaceVerdict | undefined> {
  if (!deps.config.faces.check) return undefined;
  const analysis = await deps.faces.analyze(photo.data);
  const spaceIds =
    subject.spaceIds ??
    (subject.personId
      ? (
          await deps.models.PersonSpace.findAll({
            attributes: ['spaceId'],
            where: { personId: subject.personId },
            raw: true,
          })
        ).map((r) => r.spaceId)
      : []);
  const need = await faceRequirement(
    deps,
    subject.organizationId,
    spaceIds,
    Math.max(analysis.width, analysis.height),
  );
  const reasons = faceReasons(analysis, need);
  const problems = reasons.map((r) => describeMessage(r, formatEnglish));
  const acceptedBy = problems.length > 0 ? (subject.acceptedBy ?? null) : null;
  if (problems.length > 0 && !acceptedBy) throw faceRefused(reasons);
  return {
    analysis,
    reasons,
    problems,
    acceptedBy,
    lookAlikes: analysis.descriptor
      ? await lookAlikes(
          deps,
          subject.organizationId,
          analysis.descriptor,
          subject.personId ?? null,
        )
      : [],
    checkedAt: deps.clock.now(),
  };
}

/**
 * The check of an imported row's photo: the person's spaces are the row's, or — when the row
 * leaves them out — those of the person it updates (who is not compared with themselves).
 */
export async function checkRowFace(
  deps: Deps,
  photo: NormalizedPhoto,
  actor: { organizationId: string },
  row: { idNumber: string; spaceIds?: string[] | undefined },
): Promise<FaceVerdict | undefined> {
  if (!deps.config.faces.check) return undefined;
  const existing = await findByIdNumber(deps, actor.organizationId, row.idNumber);
  return checkFace(deps, photo, {
    organizationId: actor.organizationId,
    personId: existing?.id ?? null,
    spaceIds: row.spaceIds ?? existing?.spaceIds ?? [],
  });
}

/**
 * A face check's problems as one message's params: each problem's values, and `reasons`, their
 * codes comma-joined (shared `describeMessage` says them as `detail`).
 */
export function reasonParams(reasons: readonly Message[]): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const r of reasons) Object.assign(params, r.params);
  params.reasons = reasons.map((r) => r.code).join(',');
  return params;
}

/**
 * 422 `face_check_failed`: `params.reason` `face_refused` with `reasons` (the problems' codes,
 * comma-joined) and their values, so a client says each problem in its reader's language.
 */
export function faceRefused(reasons: readonly Message[]): HttpError {
  const params = { ...reasonParams(reasons), reason: 'face_refused' };
  const detail = reasons.map((r) => describeMessage(r, formatEnglish)).join('; ');
  return new HttpError(
    422,
    ErrorCode.faceCheckFailed,
    describeMessage({ code: 'face_refused', params }, formatEnglish),
    { photo: detail },
    undefined,
    { params },
  );
}

/**
 * Stores the verdict with the person's photo in the caller's transaction; an accepted failing
 * photo is audited there too. `replace`: the photo is now the person's (not a held change).
 */
export async function recordFace(
  deps: Deps,
  verdict: FaceVerdict | undefined,
  to: { personId: string; organizationId: string; photoSha256: string; replace: boolean },
  actor: Pick<AuditEntry, 'actor' | 'ip'>,
  transaction: Transaction,
): Promise<void> {
  if (!verdict) return;
  await saveFace(
    deps,
    {
      personId: to.personId,
      organizationId: to.organizationId,
      photoSha256: to.photoSha256,
      analysis: verdict.analysis,
      reasons: verdict.reasons,
      acceptedBy: verdict.acceptedBy,
      checkedAt: verdict.checkedAt,
    },
    to.replace,
    transaction,
  );
  if (verdict.acceptedBy && verdict.problems.length > 0) {
    await deps.audit.record(
      {
        ...actor,
        organizationId: to.organizationId,
        action: 'person.photo_face_accepted',
        target: { type: 'person', id: to.personId },
        summary: `photo accepted despite the face check: ${verdict.problems.join('; ')}`,
        message: { code: 'photo_face_accepted', params: reasonParams(verdict.reasons) },
      },
      transaction,
    );
  }
}

/** The answer's view of a verdict (no descriptor). */
export function verdictOut(verdict: FaceVerdict): FaceCheckOut {
  const face = verdict.analysis.faces.length === 1 ? verdict.analysis.faces[0]! : undefined;
  const round = (v: number) => Math.round(v);
  return {
    faces: verdict.analysis.faces.length,
    box: face
      ? {
          x: round(face.box.x),
          y: round(face.box.y),
          width: round(face.box.width),
          height: round(face.box.height),
        }
      : null,
    score: verdict.analysis.faces.reduce<number | null>((m, f) => Math.max(m ?? 0, f.score), null),
    sharpness: verdict.analysis.sharpness,
    frontal: verdict.analysis.frontal,
    problems: verdict.problems,
    reasons: verdict.reasons,
    acceptedBy: verdict.acceptedBy,
    checkedAt: verdict.checkedAt.toISOString(),
  };
}
