import { randomUUID } from 'node:crypto';
import { ErrorCode, type RecognitionEventIn } from '@svc/shared';
import { UniqueConstraintError } from 'sequelize';
import type { AppContext } from '../../platform/context.js';
import { HttpError, httpErrors } from '../../platform/http/errors.js';
import { eventTimes } from '../../devices/clock.js';
import { toEventOut } from '../events/records.js';
import { checkSnapshot } from './snapshot.js';
import type { EventRecord } from '../store/events.js';

/** The person_id column holds our own ids (uuids); a longer id cannot be one of ours. */
const MAX_PERSON_ID = 36;

export interface Accepted {
  id: string;
  /** false: the same eventId was already recorded (answer 200 with the same id). */
  created: boolean;
}

/**
 * PROTOCOL §3 intake: authenticates the device, dedupes by eventId (the unique index decides a
 * race), stores the snapshot as a file, and records person, device and space as named now.
 */
export async function acceptEvent(
  ctx: AppContext,
  body: RecognitionEventIn,
  key: string,
): Promise<Accepted> {
  const { clock } = ctx;
  // Reads are shared with the other requests of the moment (lookups.ts): one query each, all
  // started at once, so an event waits for one round of reads instead of three in a row (on
  // SQLite every statement queues on the one connection). What they find is used in the
  // protocol's order: credentials, then the resend check, then the rest.
  const look = ctx.recognition.lookups;
  const personId =
    body.personId !== null && body.personId.length <= MAX_PERSON_ID ? body.personId : null;
  const [found, knownRow, personRow, route] = await Promise.all([
    look.deviceByKey(key),
    look.eventById(body.eventId),
    personId !== null ? look.person(personId) : undefined,
    look.panelRoute(),
  ]);
  const device = found && found.sn === body.sn ? found : undefined;
  if (!device) {
    throw new HttpError(
      401,
      ErrorCode.unauthorized,
      'Unknown device key, or not the key of this serial number.',
    );
  }
  if (!device.enabled) {
    throw httpErrors.forbidden(`Device ${device.sn} is disabled in the central service.`);
  }
  // A resend is common (the device did not see our answer): answer it before any heavy work.
  const known = recordOf(knownRow, device.sn);
  if (known) return { id: known, created: false };

  const snapshot = body.snapshot !== undefined ? await checkSnapshot(body.snapshot) : undefined;
  const ours = <T extends { organizationId: string }>(row: T | null | undefined) =>
    row && row.organizationId === device.organizationId ? row : null;
  const person = ours(personRow);
  const space = ours(device.space);
  const now = clock.now();
  const deviceTime = new Date(body.time);
  const pending = !!route?.url;
  const values: EventRecord = {
    id: randomUUID(),
    eventId: body.eventId,
    organizationId: device.organizationId,
    deviceId: device.id,
    deviceSn: device.sn,
    deviceName: device.name,
    personId: person?.id ?? null,
    personName: person?.name ?? null,
    spaceId: space?.id ?? null,
    spaceName: space?.name ?? null,
    score: body.score,
    ...eventTimes(deviceTime, now),
    receivedAt: now,
    snapshotSha256: null,
    deliveryState: pending ? 'pending' : 'none',
    deliveryAttempts: 0,
    nextDeliveryAt: pending ? now : null,
    deliveredAt: null,
    deliveryError: null,
  };
  if (body.personId !== null && !person) {
    // Not one of this organization's people (deleted, or never synchronized from here): the
    // record shows a stranger rather than an id nobody can resolve.
    ctx.logger.debug({ eventId: body.eventId, sn: device.sn }, 'event names an unknown person');
  }
  let row: EventRecord;
  try {
    // Committed together with the events of the same moment (group commit, event-writer.ts).
    row = await ctx.recognition.writer.add(values, snapshot);
  } catch (err) {
    if (!(err instanceof UniqueConstraintError)) throw err;
    // Another request with the same eventId won the race; its row is the record.
    const winner = await existing(ctx, body.eventId, device.sn);
    if (!winner) throw err;
    return { id: winner, created: false };
  }
  ctx.live.publish({
    organizationId: row.organizationId,
    event: 'recognition',
    data: toEventOut(row),
  });
  if (pending) ctx.recognition.delivery?.wake();
  // Within tolerance the device's time stays the event's time (evidence); beyond it, it is kept
  // as reported. How far the clock is off is noted on the device, off the answer's path.
  void ctx.deviceClocks
    .fromEvent(device, deviceTime, now)
    .catch((err: unknown) => ctx.logger.warn({ err, sn: device.sn }, 'clock drift not recorded'));
  return { id: row.id, created: true };
}

async function existing(ctx: AppContext, eventId: string, sn: string): Promise<string | null> {
  const row = await ctx.models.RecognitionEvent.findOne({
    where: { eventId },
    attributes: ['id', 'deviceSn'],
  });
  return recordOf(row ?? undefined, sn);
}

function recordOf(row: { id: string; deviceSn: string } | undefined, sn: string): string | null {
  if (!row) return null;
  if (row.deviceSn !== sn) {
    // Event ids are the device's uuids; one from another device is a collision or a probe,
    // never a resend, and must not reveal the other record.
    throw httpErrors.conflict('This eventId was already used by another device.', {
      reason: 'event_id_used',
    });
  }
  return row.id;
}
