import { z } from 'zod';
import { isoTime } from './common.js';
import { deviceSn } from './device.js';
import { listOf, pageQuery } from './admin-api.js';
import { panelFailureCodes } from './panel-failure.js';

const uuid = z.uuid();

export const deliveryStates = ['pending', 'delivered', 'expired', 'none'] as const;
export type DeliveryStateName = (typeof deliveryStates)[number];

/** Where an event stands on its way to the panel route (PROTOCOL §4). */
export const deliveryOut = z.object({
  /** 'none': no panel route was configured when the event arrived, so nothing is sent. */
  state: z.enum(deliveryStates),
  attempts: z.number().int().min(0),
  deliveredAt: z.union([isoTime, z.null()]),
  /** When a pending event is tried next (it may also wait for an older one). */
  nextAttemptAt: z.union([isoTime, z.null()]),
  /** The last failure, in plain words (English, for logs and API users). */
  error: z.union([z.string(), z.null()]),
  /** The last failure's code and values, for a client to word it (null when none). */
  errorCode: z.union([z.enum(panelFailureCodes), z.null()]),
  errorParams: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type Delivery = z.infer<typeof deliveryOut>;

/** Failed tries kept per event (the newest): a panel down for days does not grow the log. */
export const DELIVERY_FAILURES_KEPT = 20;

/** One failed try to deliver an event to the panel (a delivered try is `deliveredAt`). */
export const deliveryFailureOut = z.object({
  /** The try's number, from 1 (the event's `attempts` counted at that try). */
  attempt: z.number().int().min(1),
  at: isoTime,
  /** Why it failed, in plain words (English). */
  error: z.string(),
  /** Why it failed, as its code and values (a client words it from these). */
  errorCode: z.enum(panelFailureCodes),
  errorParams: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type DeliveryFailure = z.infer<typeof deliveryFailureOut>;

/** `GET /api/recognition/events/{id}/deliveries`: the kept failed tries, oldest first. */
export const deliveryHistoryOut = z.object({ failures: z.array(deliveryFailureOut) });
export type DeliveryHistory = z.infer<typeof deliveryHistoryOut>;

/**
 * One recognition as the central service recorded it: person, device and space as they were
 * named at that time (later renames do not rewrite history).
 */
export const recognitionEventOut = z.object({
  id: z.string(),
  eventId: z.string(),
  /**
   * When the event happened: the device's time, or the central service's receive time when
   * the device's was more than 24 h away from it (then `reportedTime` is set). Lists, order
   * and retention go by this.
   */
  time: isoTime,
  receivedAt: isoTime,
  /** The device's own time, kept as reported, when it was out of tolerance; else null. */
  reportedTime: z.union([isoTime, z.null()]),
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
  deliveryState: z.enum(deliveryStates).optional(),
});
export type RecognitionFilter = z.infer<typeof recognitionFilter>;

export const recognitionQuery = pageQuery.extend(recognitionFilter.shape);

/**
 * Each organization keeps its own events for its own number of days. `organizationId` names
 * another organization than the administrator's own: a superadmin's choice only.
 */
export const retentionSetting = z.object({
  days: z.number().int().min(1).max(3650),
  organizationId: uuid.optional(),
});
export const retentionQuery = z.object({ organizationId: uuid.optional() });
export type RetentionSetting = z.infer<typeof retentionSetting>;

/** The live stream's `delivery` message (`GET /api/recognition/stream`). */
export const deliveryChange = z.object({ id: z.string(), delivery: deliveryOut });

/** The live stream's `sync` message: one synchronization task's new state. */
export const syncChange = z.object({
  id: z.string(),
  personId: z.string(),
  deviceId: z.string(),
  action: z.enum(['put', 'delete']),
  state: z.enum(['pending', 'running', 'succeeded', 'failed']),
  attempts: z.number().int().min(0),
  /** The error code of a failed or retried attempt, else null. */
  errorCode: z.union([z.string(), z.null()]),
});
export type SyncChange = z.infer<typeof syncChange>;
