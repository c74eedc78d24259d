import { panelFailureOf, type PanelEvent } from '@svc/shared';
import { Op, type WhereOptions } from 'sequelize';
import type { RecognitionEventRow } from '../../platform/db/business-models.js';
import type { RecognitionEventOut, RecognitionFilter } from '../schemas.js';
import type { EventRecord } from '../store/events.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toEventOut(row: EventRecord): RecognitionEventOut {
  return {
    id: row.id,
    eventId: row.eventId,
    time: row.time.toISOString(),
    receivedAt: row.receivedAt.toISOString(),
    reportedTime: iso(row.reportedTime),
    person: row.personId !== null ? { id: row.personId, name: row.personName ?? '' } : null,
    device: { id: row.deviceId, sn: row.deviceSn, name: row.deviceName },
    space: row.spaceId !== null ? { id: row.spaceId, name: row.spaceName ?? '' } : null,
    score: row.score,
    snapshotUrl: row.snapshotSha256 ? `/api/recognition/events/${row.id}/snapshot` : null,
    delivery: {
      state: row.deliveryState,
      attempts: row.deliveryAttempts,
      deliveredAt: iso(row.deliveredAt),
      nextAttemptAt: row.deliveryState === 'pending' ? iso(row.nextDeliveryAt) : null,
      error: row.deliveryError,
      ...(row.deliveryError === null
        ? { errorCode: null, errorParams: {} }
        : failureFields(row.deliveryError)),
    },
  };
}

/** A stored failure sentence's code and values, beside it in the API. */
export function failureFields(error: string) {
  const { code, params } = panelFailureOf(error);
  return { errorCode: code, errorParams: params };
}

/** The PROTOCOL §4 body: built only from what was stored at intake, so it never changes. */
export function toPanelEvent(row: EventRecord): PanelEvent {
  return {
    eventId: row.eventId,
    time: row.time.toISOString(),
    score: row.score,
    person: row.personId !== null ? { id: row.personId, name: row.personName ?? '' } : null,
    device: { sn: row.deviceSn, name: row.deviceName },
    space: row.spaceId !== null ? { id: row.spaceId, name: row.spaceName ?? '' } : null,
  };
}

export function filterWhere(filter: RecognitionFilter): WhereOptions<RecognitionEventRow> {
  const time: Record<symbol, Date> = {};
  if (filter.from) time[Op.gte] = new Date(filter.from);
  if (filter.to) time[Op.lt] = new Date(filter.to);
  return {
    ...(filter.personId !== undefined && { personId: filter.personId }),
    ...(filter.sn !== undefined && { deviceSn: filter.sn }),
    ...(filter.deviceId !== undefined && { deviceId: filter.deviceId }),
    ...(filter.spaceId !== undefined && { spaceId: filter.spaceId }),
    ...(filter.deliveryState !== undefined && { deliveryState: filter.deliveryState }),
    ...(Object.getOwnPropertySymbols(time).length > 0 && { time }),
  };
}
