import { QueryTypes, type Transaction } from 'sequelize';
import {
  describeMessage,
  formatEnglish,
  type FaceCheckOut,
  type LookAlikeOut,
  type Message,
} from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import { loadSpaceTree } from '../../spaces/tree.js';
import type { FaceAnalysis } from './detector.js';
import {
  descriptorBytes,
  descriptorDistance,
  descriptorOf,
  LOOKALIKE_DISTANCE,
  type FaceRequirement,
} from './rules.js';

type Deps = Pick<AppContext, 'db' | 'models' | 'config'>;

/**
 * The strictest of the devices that will receive a person with access to `spaceIds` (those in
 * the spaces or below them, as the sync planner sends): the face height each one needs, scaled
 * to the stored photo when the device gets it smaller (maxPhotoPixels).
 */
export async function faceRequirement(
  deps: Deps,
  organizationId: string,
  spaceIds: readonly string[],
  photoSide: number,
  transaction?: Transaction,
): Promise<FaceRequirement> {
  const fallback = deps.config.faces.minFacePx;
  let need: FaceRequirement = {
    minHeight: fallback,
    devicePx: fallback,
    deviceSide: null,
    who: null,
  };
  if (spaceIds.length === 0) return need;
  const tree = await loadSpaceTree(deps, organizationId, transaction);
  const reached = new Set(spaceIds.flatMap((id) => [id, ...tree.descendantsOf(id)]));
  const devices = await deps.models.Device.findAll({
    attributes: ['spaceId', 'minFacePx', 'maxPhotoPixels'],
    where: { organizationId, enabled: true, spaceId: [...reached] },
    raw: true,
    transaction,
  });
  let strictest: string | null = null;
  for (const d of devices) {
    const devicePx = d.minFacePx ?? fallback;
    const side =
      d.maxPhotoPixels !== null && d.maxPhotoPixels < photoSide ? d.maxPhotoPixels : null;
    const minHeight = Math.ceil(side ? (devicePx * photoSide) / side : devicePx);
    if (minHeight > need.minHeight) {
      need = { minHeight, devicePx, deviceSide: side, who: null };
      strictest = d.spaceId;
    }
  }
  if (strictest) {
    const space = await deps.models.Space.findByPk(strictest, {
      attributes: ['name'],
      transaction,
    });
    need.who = space?.name ?? null;
  }
  return need;
}

export interface FaceRecord {
  personId: string;
  organizationId: string;
  photoSha256: string;
  analysis: FaceAnalysis;
  /** The problems by code and values: stored as such, worded when read. */
  reasons: Message[];
  acceptedBy: string | null;
  checkedAt: Date;
}

/**
 * Stores the check of a person's photo. `replace`: the photo became the person's, so the rows
 * of their earlier photos go (a re-enrollment held for review keeps its own).
 */
export async function saveFace(
  deps: Deps,
  r: FaceRecord,
  replace: boolean,
  transaction: Transaction,
): Promise<void> {
  const q = (sql: string, replacements: unknown[]) =>
    deps.db.sequelize.query(sql, { replacements, transaction });
  await q('DELETE FROM person_faces WHERE person_id = ? AND photo_sha256 = ?', [
    r.personId,
    r.photoSha256,
  ]);
  if (replace) {
    await q(
      `DELETE FROM person_faces WHERE person_id = ? AND photo_sha256 <> ? AND photo_sha256 NOT IN
        (SELECT new_photo_sha256 FROM enrollment_changes WHERE person_id = ? AND state = 'pending')`,
      [r.personId, r.photoSha256, r.personId],
    );
  }
  const face = r.analysis.faces.length === 1 ? r.analysis.faces[0]! : undefined;
  const best = r.analysis.faces.reduce<number | null>((m, f) => Math.max(m ?? 0, f.score), null);
  await q(
    `INSERT INTO person_faces (person_id, photo_sha256, organization_id, faces, box_x, box_y,
      box_w, box_h, score, sharpness, frontal, problems, descriptor, accepted_by, checked_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.personId,
      r.photoSha256,
      r.organizationId,
      r.analysis.faces.length,
      face ? Math.round(face.box.x) : null,
      face ? Math.round(face.box.y) : null,
      face ? Math.round(face.box.width) : null,
      face ? Math.round(face.box.height) : null,
      best,
      r.analysis.sharpness,
      r.analysis.frontal,
      JSON.stringify(r.reasons),
      r.analysis.descriptor ? descriptorBytes(r.analysis.descriptor) : null,
      r.acceptedBy,
      r.checkedAt,
    ],
  );
}

interface FaceRow {
  faces: number;
  box_x: number | null;
  box_y: number | null;
  box_w: number | null;
  box_h: number | null;
  score: number | null;
  sharpness: number | null;
  frontal: number | null;
  problems: string;
  accepted_by: string | null;
  checked_at: Date | string;
}

/**
 * `person_faces.problems`: a JSON array of the problems by code and values (`{code, params}`);
 * checks stored before codes hold their English sentences instead, which stand as they are.
 */
function storedProblems(json: string): Pick<FaceCheckOut, 'problems' | 'reasons'> {
  const items = JSON.parse(json) as (string | Message)[];
  if (items.some((item) => typeof item === 'string')) {
    return {
      problems: items.map((item) => (typeof item === 'string' ? item : item.code)),
      reasons: null,
    };
  }
  const reasons = items as Message[];
  return { problems: reasons.map((r) => describeMessage(r, formatEnglish)), reasons };
}

/** The stored check of one of a person's photos (the descriptor is not read). */
export async function readFace(
  deps: Deps,
  personId: string,
  photoSha256: string,
): Promise<FaceCheckOut | null> {
  const [row] = await deps.db.sequelize.query<FaceRow>(
    `SELECT faces, box_x, box_y, box_w, box_h, score, sharpness, frontal, problems, accepted_by,
      checked_at FROM person_faces WHERE person_id = ? AND photo_sha256 = ?`,
    { replacements: [personId, photoSha256], type: QueryTypes.SELECT },
  );
  if (!row) return null;
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    faces: Number(row.faces),
    box:
      row.box_x === null || row.box_y === null || row.box_w === null || row.box_h === null
        ? null
        : {
            x: Number(row.box_x),
            y: Number(row.box_y),
            width: Number(row.box_w),
            height: Number(row.box_h),
          },
    score: num(row.score),
    sharpness: num(row.sharpness),
    frontal: num(row.frontal),
    ...storedProblems(row.problems),
    acceptedBy: row.accepted_by,
    checkedAt: new Date(row.checked_at).toISOString(),
  };
}

/** The stored descriptors of a person's photos, by photo hash. */
export async function descriptorsOf(
  deps: Deps,
  personId: string,
  photos: readonly string[],
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  if (photos.length === 0) return out;
  const rows = await deps.db.sequelize.query<{ photo_sha256: string; descriptor: Buffer | null }>(
    `SELECT photo_sha256, descriptor FROM person_faces
      WHERE person_id = :personId AND photo_sha256 IN (:photos)`,
    { replacements: { personId, photos: [...photos] }, type: QueryTypes.SELECT },
  );
  for (const r of rows) {
    const d = descriptorOf(r.descriptor);
    if (d) out.set(r.photo_sha256, d);
  }
  return out;
}

const BATCH = 2000;

/**
 * Other people of the organization whose current photo's face is closer than
 * LOOKALIKE_DISTANCE to `descriptor`, closest first. Read in batches: 128 floats a person.
 */
export async function lookAlikes(
  deps: Deps,
  organizationId: string,
  descriptor: Float32Array,
  exceptPersonId: string | null,
): Promise<LookAlikeOut[]> {
  const found: LookAlikeOut[] = [];
  let after = '';
  for (;;) {
    const rows = await deps.db.sequelize.query<{
      person_id: string;
      name: string;
      id_number: string;
      descriptor: Buffer | null;
    }>(
      `SELECT f.person_id, p.name, p.id_number, f.descriptor FROM person_faces f
        JOIN people p ON p.id = f.person_id AND p.photo_sha256 = f.photo_sha256
        WHERE f.organization_id = ? AND f.person_id > ? AND f.descriptor IS NOT NULL
        ORDER BY f.person_id LIMIT ${BATCH}`,
      { replacements: [organizationId, after], type: QueryTypes.SELECT },
    );
    for (const r of rows) {
      if (r.person_id === exceptPersonId) continue;
      const other = descriptorOf(r.descriptor);
      if (!other) continue;
      const distance = descriptorDistance(descriptor, other);
      if (distance < LOOKALIKE_DISTANCE) {
        found.push({ personId: r.person_id, name: r.name, idNumber: r.id_number, distance });
      }
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.person_id;
  }
  return found.sort((a, b) => a.distance - b.distance).slice(0, 5);
}

/**
 * How close the new face of each re-enrollment change is to the old one (null when either
 * photo has no stored descriptor), for the approver.
 */
export async function changeDistances<
  T extends { personId: string; oldPhotoSha256: string | null; newPhotoSha256: string },
>(deps: Deps, changes: readonly T[]): Promise<(T & { faceDistance: number | null })[]> {
  const out: (T & { faceDistance: number | null })[] = [];
  for (const c of changes) {
    const photos = [c.newPhotoSha256, ...(c.oldPhotoSha256 ? [c.oldPhotoSha256] : [])];
    const known = await descriptorsOf(deps, c.personId, photos);
    const [a, b] = [known.get(c.newPhotoSha256), c.oldPhotoSha256 && known.get(c.oldPhotoSha256)];
    out.push({ ...c, faceDistance: a && b ? descriptorDistance(a, b) : null });
  }
  return out;
}
