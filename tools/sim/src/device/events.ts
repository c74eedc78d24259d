import { recognitionEventIn } from '@svc/shared';
import type { RecognitionEventIn } from '@svc/shared';
import { z } from 'zod';
import type { SimDeps } from '../deps.js';
import { joinUrl } from '../http/outbound.js';
import type { Outbound } from '../http/outbound.js';
import { placeholderSnapshot } from './snapshot.js';

export const emitInput = z.object({
  personId: z.union([z.string().min(1).max(64), z.null()]),
  score: z.number().min(0).max(1).optional(),
  time: z.union([z.iso.datetime({ precision: 3 }), z.date()]).optional(),
  withSnapshot: z.boolean().optional(),
});
export type EmitInput = z.input<typeof emitInput>;

export interface EmitResult {
  eventId: string;
  /** The central service's HTTP status; null when it could not be reached. */
  status: number | null;
  body: unknown;
  error?: string;
  /** The event as sent (the snapshot left out). */
  event: Omit<RecognitionEventIn, 'snapshot'> & { snapshotBytes?: number };
}

/** A known person scores high, a stranger low, unless the caller says otherwise. */
const defaultScore = (personId: string | null): number => (personId ? 0.97 : 0.41);
const REMEMBERED_EVENTS = 1000;

export interface EventSender {
  emit(input: EmitInput): Promise<EmitResult>;
  /** Sends an earlier event again, byte for byte (the central service must not duplicate it). */
  resend(eventId: string): Promise<EmitResult>;
  has(eventId: string): boolean;
  last(): EmitResult | null;
}

export function createEventSender(
  sn: string,
  connection: () => { key?: string; centralUrl?: string },
  outbound: Outbound,
  deps: SimDeps,
): EventSender {
  const sent = new Map<string, RecognitionEventIn>();
  let last: EmitResult | null = null;

  const send = async (event: RecognitionEventIn): Promise<EmitResult> => {
    const { key, centralUrl } = connection();
    if (!centralUrl) throw new Error(`device ${sn} has no central URL`);
    const url = joinUrl(centralUrl, '/api/recognition/events');
    const result = await outbound.post(url, event, key);
    const { snapshot, ...summary } = event;
    last = {
      eventId: event.eventId,
      status: result.status,
      body: result.body,
      ...(result.error ? { error: result.error } : {}),
      event: {
        ...summary,
        ...(snapshot ? { snapshotBytes: Buffer.from(snapshot, 'base64').byteLength } : {}),
      },
    };
    deps.onEvent({
      type: 'event-sent',
      node: sn,
      eventId: event.eventId,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
    });
    return last;
  };

  return {
    async emit(raw) {
      const input = emitInput.parse(raw);
      const time = input.time ?? deps.clock.now();
      const event = recognitionEventIn.parse({
        eventId: deps.uuid(),
        sn,
        personId: input.personId,
        score: input.score ?? defaultScore(input.personId),
        time: typeof time === 'string' ? time : time.toISOString(),
        ...(input.withSnapshot ? { snapshot: placeholderSnapshot().toString('base64') } : {}),
      });
      sent.set(event.eventId, event);
      if (sent.size > REMEMBERED_EVENTS) sent.delete(sent.keys().next().value as string);
      return send(event);
    },
    resend(eventId) {
      const event = sent.get(eventId);
      if (!event) return Promise.reject(new Error(`no event ${eventId} was sent by ${sn}`));
      return send(event);
    },
    has: (eventId) => sent.has(eventId),
    last: () => last,
  };
}
