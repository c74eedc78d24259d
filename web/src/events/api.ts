/** The recognition events API: the events list, one event, its deliveries, the CSV export. */
import {
  deliveryHistoryOut,
  recognitionEventList,
  recognitionEventOut,
  type DeliveryHistory,
  type RecognitionEventOut,
} from '@svc/shared';
import { request, withQuery } from '../api';

export interface EventSearch {
  personId?: string;
  deviceId?: string;
  from?: string;
  to?: string;
  page: number;
  pageSize: number;
}

const eventPath = (id: string) => `/api/recognition/events/${encodeURIComponent(id)}`;

export function listEvents(
  search: EventSearch,
  signal?: AbortSignal,
): Promise<{ items: RecognitionEventOut[]; total: number }> {
  return request('GET', withQuery('/api/recognition/events', { ...search }), {
    schema: recognitionEventList,
    signal,
  });
}

export function getEvent(id: string, signal?: AbortSignal): Promise<RecognitionEventOut> {
  return request('GET', eventPath(id), { schema: recognitionEventOut, signal });
}

/** Each failed try to deliver the event to the panel, with its time and reason. */
export function getDeliveryHistory(id: string, signal?: AbortSignal): Promise<DeliveryHistory> {
  return request('GET', `${eventPath(id)}/deliveries`, { schema: deliveryHistoryOut, signal });
}

/** The events of the same search as CSV, every page of it. */
export function exportEventsUrl(search: EventSearch): string {
  const { personId, deviceId, from, to } = search;
  return withQuery('/api/exports/events.csv', { personId, deviceId, from, to });
}

/** The event's snapshot (the server answers 404 when the event has none). */
export function snapshotUrl(id: string): string {
  return `${eventPath(id)}/snapshot`;
}
