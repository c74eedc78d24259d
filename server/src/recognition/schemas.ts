import { deviceSn, isoTime, listOf, pageQuery } from '@svc/shared';
import { z } from 'zod';

const uuid = z.uuid();

/** Where an event stands on its way to the panel route (PROTOCOL §4). */
export const deliveryOut = z.object({
  /** 'none': no panel route was configured when the event arrived, so nothing is sent. */
  state: z.enum(['pending', 'delivered', 'expired', 'none']),
  attempts: z.number().int().min(0),
  deliveredAt: z.union([isoTime, z.null()]),
  /** When a pending event is tried next (it may also wait for an older one). */
  nextAttemptAt: z.union([isoTime, z.null()]),
  /** The last failure, in plain words. */
  error: z.union([z.string(), z.null()]),
});

/**
 * One recognition as the central service recorded it: person, device and space as they were
 * named at that time (later renames do not rewrite history).
 */
export const recognitionEventOut = z.object({
  id: z.string(),
  eventId: z.string(),
  time: isoTime,
  receivedAt: isoTime,
  person: z.union([z.object({ id: z.string(), name: z.string() }), z.null()]),
  device: z.object({ id: z.union([z.string(), z.null()]), sn: z.string(), name: z.string() }),
  space: z.union([z.object({ id: z.string(), name: z.string() }), z.null()]),
  score: z.number(),
  snapshotUrl: z.union([z.string(), z.null()]),
  delivery: deliveryOut,
});
export type RecognitionEventOut = z.infer<typeof recognitionEventOut>;

export const recognitionEventList = listOf(recognitionEventOut);

/** Search filters (PROTOCOL §7 plus the project's own); `to` is exclusive. */
export const recognitionFilter = z.object({
  personId: uuid.optional(),
  sn: deviceSn.optional(),
  deviceId: uuid.optional(),
  spaceId: uuid.optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  deliveryState: z.enum(['pending', 'delivered', 'expired', 'none']).optional(),
});
export type RecognitionFilter = z.infer<typeof recognitionFilter>;

export const recognitionQuery = pageQuery.extend(recognitionFilter.shape);

export const retentionSetting = z.object({
  days: z.number().int().min(1).max(3650),
});
export type RetentionSetting = z.infer<typeof retentionSetting>;
