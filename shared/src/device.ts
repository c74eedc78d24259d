import { z } from 'zod';
import { ruleText } from './messages.js';
import { BASE64_PATTERN, isBase64 } from './base64.js';
import { isoTime, nodeId } from './common.js';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256');
// The pattern stays in the JSON Schema (OpenAPI); isBase64 checks it faster than the regex.
const base64 = z.string().refine(isBase64, 'must be base64').meta({ pattern: BASE64_PATTERN });
export const deviceSn = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._:-]+$/, ruleText('format_node_id'));

/** Central → device `PUT /api/persons/{id}` (PROTOCOL §3). */
export const devicePersonPut = z.object({
  // Used as a path segment (/api/persons/{id}): the same characters as a node id.
  id: nodeId,
  name: z.string().min(1).max(128),
  idNumber: z.string().max(64).optional(),
  photo: base64.min(1),
  photoSha256: sha256Hex,
  version: z.number().int().min(0),
  validFrom: isoTime.optional(),
  validUntil: isoTime.optional(),
});
export type DevicePersonPut = z.infer<typeof devicePersonPut>;

/** What a device answers for a stored person (PROTOCOL §3). */
export const devicePersonState = z.object({
  id: z.string(),
  version: z.number().int().min(0),
  photoSha256: sha256Hex,
});
export type DevicePersonState = z.infer<typeof devicePersonState>;

/** Device → central `POST /api/device/heartbeat` (PROTOCOL §3). */
export const deviceHeartbeat = z.object({
  sn: deviceSn,
  /**
   * The device's clock when it sent the heartbeat (optional; ISO-8601, any precision or
   * offset): the central service measures the device's clock drift from it.
   */
  time: z.iso.datetime({ offset: true }).optional(),
});
export type DeviceHeartbeat = z.infer<typeof deviceHeartbeat>;

/** Device → central `POST /api/recognition/events` (PROTOCOL §3). */
export const recognitionEventIn = z.object({
  eventId: z.uuid(),
  sn: deviceSn,
  personId: z.union([z.string().min(1).max(64), z.null()]),
  score: z.number().min(0).max(1),
  time: isoTime,
  snapshot: base64.optional(),
});
export type RecognitionEventIn = z.infer<typeof recognitionEventIn>;

export const recognitionEventAccepted = z.object({ id: z.string() });

/** Enrollment terminal → central `POST /api/enrollment/persons` (PROTOCOL §3). */
export const enrollmentPerson = z.object({
  name: z.string().trim().min(1).max(128),
  idNumber: z.string().trim().min(1).max(64),
  photo: base64.min(1),
  spaceIds: z.array(z.string()).max(256).optional(),
});
export type EnrollmentPerson = z.infer<typeof enrollmentPerson>;

export const createdId = z.object({ id: z.string() });
