import { z } from 'zod';
import { pageQuery, uuid } from './admin-api.js';
import { isoTime, nodeId } from './common.js';

/**
 * `POST /api/enrollment/persons` answers (PROTOCOL §3): 201 `{"id"}` for a new person; 200 for
 * an existing ID number, where `pending` says the name or photo change waits for an
 * administrator's review (`changeId` names it), and false means nothing needed changing.
 */
export const enrollmentAnswer = z.object({
  id: z.string(),
  pending: z.boolean().optional(),
  changeId: z.string().optional(),
});
export type EnrollmentAnswer = z.infer<typeof enrollmentAnswer>;

/** `GET`/`PUT /api/terminals/{id}/spaces`: the spaces an enrollment terminal may grant. */
export const terminalIdParams = z.object({ id: nodeId });
export const terminalSpacesUpdate = z.object({ spaceIds: z.array(uuid).max(256) });
export const terminalSpaces = z.object({
  terminalId: z.string(),
  spaceIds: z.array(z.string()),
});
export type TerminalSpaces = z.infer<typeof terminalSpaces>;

export const enrollmentChangeState = z.enum(['pending', 'approved', 'rejected', 'superseded']);
export type EnrollmentChangeState = z.infer<typeof enrollmentChangeState>;

/** A re-enrollment held for review: what the terminal asked for, and what the person had. */
export const enrollmentChangeOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  personId: z.string(),
  terminalId: z.string(),
  /** The terminal's address when it sent the re-enrollment. */
  ip: z.string().nullable(),
  state: enrollmentChangeState,
  oldName: z.string(),
  newName: z.string(),
  oldPhotoSha256: z.string().nullable(),
  newPhotoSha256: z.string(),
  createdAt: isoTime,
  decidedAt: z.union([isoTime, z.null()]),
  decidedBy: z.string().nullable(),
});
export type EnrollmentChangeOut = z.infer<typeof enrollmentChangeOut>;

export const enrollmentChangeList = z.object({
  items: z.array(enrollmentChangeOut),
  total: z.number().int().min(0),
});

export const enrollmentChangesQuery = pageQuery.extend({
  state: enrollmentChangeState.optional(),
  personId: uuid.optional(),
});
export type EnrollmentChangesQuery = z.infer<typeof enrollmentChangesQuery>;

/** `GET /api/enrollment/changes/{id}/photo?which=old|new` (default new). */
export const enrollmentChangePhotoQuery = z.object({
  which: z.enum(['old', 'new']).default('new'),
});
