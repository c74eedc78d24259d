import { z } from 'zod';
import { photoStored } from './admin-api.js';
import { importRowReason } from './bulk.js';
import { enrollmentAnswer, enrollmentChangeOut } from './enrollment.js';

/**
 * The face check of a person's photo (issue 26): what the detector found, in the stored
 * photo's pixels. The descriptor never leaves the server.
 */
export const faceCheckOut = z.object({
  /** Faces found in the photo. */
  faces: z.number().int().min(0),
  /** The face's box when exactly one was found, else null. */
  box: z
    .object({
      x: z.number().int(),
      y: z.number().int(),
      width: z.number().int(),
      height: z.number().int(),
    })
    .nullable(),
  /** Detector confidence 0–1 (the most confident face), null without a face. */
  score: z.number().nullable(),
  /** Variance of the Laplacian of the face at 112 × 112 (higher is sharper), null without one. */
  sharpness: z.number().nullable(),
  /** 1 for a face looking straight at the camera, 0 for a profile; null without one. */
  frontal: z.number().nullable(),
  /** What is wrong with the photo, in plain words with what to do; empty when it passed. */
  problems: z.array(z.string()),
  /**
   * The same problems by message code and values (shared/src/messages.ts `face_*`), for a
   * client to word in its reader's language; null for a check stored before codes.
   */
  reasons: z.array(importRowReason).nullable(),
  /** The administrator who accepted the photo despite its problems, or null. */
  acceptedBy: z.string().nullable(),
  checkedAt: z.string(),
});
export type FaceCheckOut = z.infer<typeof faceCheckOut>;

/** Another person of the same organization whose face is close to the photo's. */
export const lookAlikeOut = z.object({
  personId: z.string(),
  name: z.string(),
  idNumber: z.string(),
  /** Euclidean distance of the 128-d descriptors: 0 identical, ≥ 0.6 usually someone else. */
  distance: z.number(),
});
export type LookAlikeOut = z.infer<typeof lookAlikeOut>;

/** `GET /api/people/{id}/face`: the check of the person's current photo (null: not checked). */
export const personFaceOut = z.object({
  check: faceCheckOut.nullable(),
  lookAlikes: z.array(lookAlikeOut),
});
export type PersonFaceOut = z.infer<typeof personFaceOut>;

/** `PUT /api/people/{id}/photo?acceptFace=true`: an administrator accepts a refused face. */
export const photoUploadQuery = z.object({
  acceptFace: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/** The photo upload's answer: the stored hash, the check, and look-alikes (a warning only). */
export const photoStoredFace = photoStored.extend({
  /** Null when the face check is off (FACE_CHECK=off). */
  face: faceCheckOut.nullable(),
  lookAlikes: z.array(lookAlikeOut),
});

/**
 * What a terminal learns when the face looks like another person of its organization: only
 * that, never who (names, ID numbers and distances are shown in the site alone), so a terminal
 * token is no face-search oracle. Held for approval, the change waits on a review; saved at
 * once (a new person), it is only flagged on the person's page, and the words say so.
 */
export const LOOK_ALIKE_NOTICE = {
  code: 'look_alike_review_pending',
  message: 'Looks like an existing person: review pending.',
} as const;
export const LOOK_ALIKE_SAVED_NOTICE = {
  code: 'look_alike_saved',
  message: 'Saved. The face looks like an existing person: an administrator will see it.',
} as const;
export const enrollmentNotice = z.object({
  code: z.enum([LOOK_ALIKE_NOTICE.code, LOOK_ALIKE_SAVED_NOTICE.code]),
  message: z.string(),
});
export type EnrollmentNotice = z.infer<typeof enrollmentNotice>;

/** PROTOCOL §3's answer with the look-alike notice (absent when nobody looks alike). */
export const enrollmentAnswerFace = enrollmentAnswer.extend({
  notice: enrollmentNotice.optional(),
});

/** A held re-enrollment with how close the new face is to the old one, for the approver. */
export const enrollmentChangeFaceOut = enrollmentChangeOut.extend({
  /** Descriptor distance old → new face (< 0.5: very likely the same person); null if unknown. */
  faceDistance: z.number().nullable(),
});
export const enrollmentChangeFaceList = z.object({
  items: z.array(enrollmentChangeFaceOut),
  total: z.number().int().min(0),
});
