import { z } from 'zod';
import { ruleText } from './messages.js';
import { adminRole } from './auth.js';
import { isoTime, storedHttpUrl } from './common.js';
import { displayName } from './display-name.js';
import { deviceSn } from './device.js';
import { serviceWarning } from './central.js';

/**
 * The administrator REST API (PROTOCOL §7 fixed paths, and this project's own shapes beyond
 * them). The server validates with these, the OpenAPI document is generated from them, and
 * the web site and desktop console parse answers with them.
 */

export const uuid = z.uuid();
/** Every display name (space, person, device, administrator, organization): one rule. */
const name = displayName;
const nullableTime = z.union([isoTime, z.null()]);
/**
 * A validity bound: an ISO time, or a date (YYYY-MM-DD) meaning the whole day in the site's
 * time zone: "from" its start, "until" its end (zoned-time.ts; the server resolves it).
 */
const validityBound = z
  .union([isoTime, z.iso.date(), z.null()])
  .refine((v) => v === null || inValidityRange(v), { message: ruleText('date_range') });

/**
 * Validity dates from 1970-01-01 to 9999-12-31: anything earlier is a typing slip (a year
 * 0001 once became 1901 on the way). A time may be up to 14 hours before 1970 in UTC: local
 * midnight of 1970-01-01 east of Greenwich.
 */
export const VALIDITY_FIRST_DATE = '1970-01-01';
export const VALIDITY_LAST_DATE = '9999-12-31';
function inValidityRange(v: string): boolean {
  const first = v.length === 10 ? VALIDITY_FIRST_DATE : '1969-12-31T10:00:00.000Z';
  return v >= first && v.slice(0, 10) <= VALIDITY_LAST_DATE;
}

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int().min(0) });

export const idParams = z.object({ id: uuid });

// --- spaces --------------------------------------------------------------------------------
/**
 * A record's edit state (an HTTP entity tag, also the `ETag` header of its GET and PATCH): sent
 * back as `If-Match` on PATCH, a save over someone else's change answers 412 `edit_conflict`.
 */
export const editTag = z.string();

export const spaceCreate = z.object({
  name,
  parentId: z.union([uuid, z.null()]).optional(),
});
export type SpaceCreate = z.infer<typeof spaceCreate>;
export const spaceUpdate = spaceCreate.partial();
export const spaceOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  createdAt: isoTime,
  updatedAt: isoTime,
  etag: editTag,
});
export type SpaceOut = z.infer<typeof spaceOut>;

// --- people --------------------------------------------------------------------------------
/** ID-document numbers: letters, digits and - / . space; unique per organization. */
export const idNumber = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ./-]*$/u, ruleText('format_id_number'));

const personFields = {
  name,
  idNumber,
  spaceIds: z.array(uuid).max(256).optional(),
  phone: z
    .union([
      z
        .string()
        .trim()
        .max(32)
        .regex(/^[0-9+()./ -]*$/, ruleText('format_phone')),
      z.null(),
    ])
    .optional(),
  notes: z.union([z.string().max(1024), z.null()]).optional(),
  validFrom: validityBound.optional(),
  validUntil: validityBound.optional(),
  enabled: z.boolean().optional(),
};
const isDate = (v: string) => v.length === 10;
/** Two times, or two dates (a one-day window is fine); a date against a time needs the zone. */
const validWindow = (v: { validFrom?: string | null; validUntil?: string | null }) =>
  !v.validFrom ||
  !v.validUntil ||
  (isDate(v.validFrom) && isDate(v.validUntil)
    ? v.validFrom <= v.validUntil
    : isDate(v.validFrom) !== isDate(v.validUntil) || v.validFrom < v.validUntil);
export const personCreate = z
  .object(personFields)
  .refine(validWindow, { message: ruleText('valid_window'), path: ['validUntil'] });
export type PersonCreate = z.infer<typeof personCreate>;
export const personUpdate = z
  .object(personFields)
  .partial()
  .refine(validWindow, { message: ruleText('valid_window'), path: ['validUntil'] });
export type PersonUpdate = z.infer<typeof personUpdate>;

export const personSort = z.enum([
  'name',
  '-name',
  'idNumber',
  '-idNumber',
  'createdAt',
  '-createdAt',
  'updatedAt',
  '-updatedAt',
]);
export const peopleQuery = pageQuery.extend({
  /** Name prefix or ID-number prefix. */
  q: z.string().trim().max(128).optional(),
  spaceId: uuid.optional(),
  /** With spaceId: also people with access to a space below it. */
  includeDescendants: z.enum(['true', 'false']).optional(),
  enabled: z.enum(['true', 'false']).optional(),
  sort: personSort.default('name'),
});
export type PeopleQuery = z.infer<typeof peopleQuery>;

export const personOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  name: z.string(),
  idNumber: z.string(),
  phone: z.string().nullable(),
  notes: z.string().nullable(),
  validFrom: nullableTime,
  validUntil: nullableTime,
  enabled: z.boolean(),
  spaceIds: z.array(z.string()),
  photoSha256: z.string().nullable(),
  version: z.number().int(),
  createdAt: isoTime,
  updatedAt: isoTime,
  etag: editTag,
});
export type PersonOut = z.infer<typeof personOut>;
/** `GET /api/people`: `total` stops counting at 10,000 (`totalCapped` then says there are more). */
export const peopleList = listOf(personOut).extend({ totalCapped: z.boolean() });

/** `PUT /api/people/{id}/photo` (also base64 JSON). */
export const photoBase64 = z.object({ photo: z.string().min(1) });
/**
 * A device that will receive the person but cannot take this photo (shorter than its minimum
 * side, or cannot be made small enough): told when the photo is provided, not when a push fails.
 */
export const photoFitCodes = ['photo_fit_small', 'photo_fit_shape', 'photo_fit_bytes'] as const;
export type PhotoFitCode = (typeof photoFitCodes)[number];
export const photoUnfitDevice = z.object({
  deviceId: z.string(),
  sn: z.string(),
  name: z.string(),
  /** In English (logs, API users). */
  message: z.string(),
  /** The same as a code with the device's limits as values, for a client to word (issue 34). */
  code: z.enum(photoFitCodes),
  params: z.record(z.string(), z.number()),
});
export type PhotoUnfitDevice = z.infer<typeof photoUnfitDevice>;
export const photoStored = z.object({
  photoSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Devices of the person that cannot take the photo; empty when every one can. */
  unfitDevices: z.array(photoUnfitDevice).optional(),
});
/** `GET /api/people/{id}/photo/fit`: the person page's warning. */
export const photoFit = z.object({ unfitDevices: z.array(photoUnfitDevice) });

// --- devices -------------------------------------------------------------------------------
const deviceFields = {
  sn: deviceSn,
  name,
  baseUrl: storedHttpUrl,
  model: z.string().trim().max(64).optional(),
  spaceId: z.union([uuid, z.null()]).optional(),
  enabled: z.boolean().optional(),
  capacity: z.union([z.number().int().min(1).max(10_000_000), z.null()]).optional(),
  maxPhotoBytes: z
    .union([
      z
        .number()
        .int()
        .min(1024)
        .max(20 * 1024 * 1024),
      z.null(),
    ])
    .optional(),
  /** The longest side a device accepts, in pixels; a longer photo is sent resized. */
  maxPhotoPixels: z.union([z.number().int().min(64).max(8192), z.null()]).optional(),
  /**
   * The shortest side a device accepts; a photo below it cannot be sent (never enlarged). At
   * most 1024: stored photos are at most 1024 px on their longest side.
   */
  minPhotoSide: z.union([z.number().int().min(16).max(1024), z.null()]).optional(),
  /** The device reads only baseline JPEGs with 4:2:0 chroma. */
  photoBaseline420: z.boolean().optional(),
  /** Smallest face height (px) the device's model enrolls; null: the server's FACE_MIN_PX. */
  minFacePx: z.union([z.number().int().min(16).max(1024), z.null()]).optional(),
};
export const deviceCreate = z.object(deviceFields);
export type DeviceCreate = z.infer<typeof deviceCreate>;
export const deviceUpdate = z.object(deviceFields).omit({ sn: true }).partial();
export const deviceOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  sn: z.string(),
  name: z.string(),
  model: z.string(),
  spaceId: z.string().nullable(),
  baseUrl: z.string(),
  enabled: z.boolean(),
  capacity: z.number().int().nullable(),
  maxPhotoBytes: z.number().int().nullable(),
  maxPhotoPixels: z.number().int().nullable(),
  minPhotoSide: z.number().int().nullable(),
  photoBaseline420: z.boolean(),
  minFacePx: z.number().int().nullable(),
  online: z.boolean(),
  lastHeartbeatAt: nullableTime,
  /** Since when the device has called with a key the service refuses; null while accepted. */
  keyRefusedAt: nullableTime,
  /**
   * The device's clock against ours: its time minus our receive time, in ms (positive: ahead),
   * as last measured from a heartbeat carrying `time` or from an event; null before any.
   */
  clock: z.object({
    driftMs: z.number().int().nullable(),
    checkedAt: nullableTime,
    source: z.enum(['heartbeat', 'event']).nullable(),
  }),
  /** Conditions an administrator should fix on this device (e.g. `clock_drift`). */
  warnings: z.array(serviceWarning),
  createdAt: isoTime,
  updatedAt: isoTime,
  etag: editTag,
});
export type DeviceOut = z.infer<typeof deviceOut>;
/** Registration and key rotation answer with the key — the only time it is shown. */
export const deviceWithKey = deviceOut.extend({ key: z.string() });

// --- administrators ------------------------------------------------------------------------
export const username = z
  .string()
  .trim()
  .toLowerCase()
  .min(3)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, ruleText('format_username'));
export const administratorCreate = z.object({
  username,
  displayName: name.optional(),
  role: adminRole,
  /** Only a superadmin may create in another organization. */
  organizationId: uuid.optional(),
});
export const administratorUpdate = z.object({
  displayName: name.optional(),
  role: adminRole.optional(),
  disabled: z.boolean().optional(),
  /** Moves the account to another organization: a superadmin's change only. */
  organizationId: uuid.optional(),
});
export const administratorOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: adminRole,
  disabled: z.boolean(),
  mustChangePassword: z.boolean(),
  lastLoginAt: nullableTime,
  createdAt: isoTime,
  etag: editTag,
});
/** Creation and password reset answer with a one-time password, shown once. */
export const administratorWithPassword = administratorOut.extend({ temporaryPassword: z.string() });

/**
 * A sign-in lockout (`GET /api/auth/lockouts`): failed sign-ins counted per username (clients
 * without a device cookie for the account), per device cookie, or per client address.
 */
export const loginLockout = z.object({
  scope: z.enum(['username', 'device', 'address']),
  /** The account the attempts named (for an address: the latest one). */
  username: z.string().nullable(),
  /** The client address, for scope `address`. */
  address: z.string().nullable(),
  failures: z.number().int().min(0),
  lockedUntil: isoTime,
});
export type LoginLockout = z.infer<typeof loginLockout>;
export const loginLockoutList = z.object({ items: z.array(loginLockout) });
export type LoginLockoutList = z.infer<typeof loginLockoutList>;
/** `DELETE /api/auth/lockouts/{username}`. */
export const lockoutParams = z.object({ username });

export const organizationCreate = z.object({ name });
/** An organization as the API answers it (PROTOCOL §7). */
export const organizationOut = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  etag: editTag,
});
export type OrganizationOut = z.infer<typeof organizationOut>;
/** `GET /api/organizations`: a superadmin sees all, other administrators their own. */
export const organizationList = z.object({
  items: z.array(organizationOut),
  total: z.number().int(),
});
export type OrganizationList = z.infer<typeof organizationList>;
export type OrganizationCreate = z.infer<typeof organizationCreate>;
