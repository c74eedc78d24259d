/**
 * Answers of the recognition routes and the stream's messages. Their zod schemas live in the
 * server (`server/src/recognition/schemas.ts`), not in `@svc/shared`, and the site never
 * imports server code, so the fields the site reads are checked here by hand. When those
 * schemas move to `@svc/shared`, this file goes (synchronization's already have).
 */
import type { Schema } from './api';

class Mismatch extends Error {}

type Check<T> = (value: unknown, at: string) => T;

const fail = (at: string, what: string): never => {
  throw new Mismatch(`${at}: expected ${what}`);
};

const str: Check<string> = (v, at) => (typeof v === 'string' ? v : fail(at, 'a string'));
const int: Check<number> = (v, at) =>
  Number.isInteger(v) ? (v as number) : fail(at, 'an integer');
const num: Check<number> = (v, at) =>
  typeof v === 'number' && Number.isFinite(v) ? v : fail(at, 'a number');

const nullable =
  <T>(check: Check<T>): Check<T | null> =>
  (v, at) =>
    v === null ? null : check(v, at);

const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (v, at) =>
    v === undefined ? undefined : check(v, at);

const oneOf =
  <const T extends string>(...values: T[]): Check<T> =>
  (v, at) =>
    values.includes(v as T) ? (v as T) : fail(at, values.join(' | '));

type Shape = Record<string, Check<unknown>>;
type Parsed<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> };

const object =
  <S extends Shape>(shape: S): Check<Parsed<S>> =>
  (v, at) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(at, 'an object');
    const source = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(shape)) out[key] = check(source[key], `${at}.${key}`);
    return out as Parsed<S>;
  };

const array =
  <T>(check: Check<T>): Check<T[]> =>
  (v, at) =>
    Array.isArray(v) ? v.map((item, i) => check(item, `${at}[${i}]`)) : fail(at, 'an array');

function schema<T>(check: Check<T>): Schema<T> & { check: Check<T> } {
  return {
    check,
    safeParse(data: unknown) {
      try {
        return { success: true, data: check(data, '$') };
      } catch (error) {
        if (error instanceof Mismatch) return { success: false };
        throw error;
      }
    },
  };
}

// ---- recognition (server/src/recognition/schemas.ts) ----

export const deliveryStates = ['pending', 'delivered', 'expired', 'none'] as const;
export type DeliveryStateName = (typeof deliveryStates)[number];

const delivery = object({
  state: oneOf(...deliveryStates),
  attempts: int,
  deliveredAt: nullable(str),
  nextAttemptAt: nullable(str),
  error: nullable(str),
});
export type Delivery = ReturnType<typeof delivery>;

const recognitionEventCheck = object({
  id: str,
  eventId: str,
  time: str,
  receivedAt: str,
  person: nullable(object({ id: str, name: str })),
  device: object({ id: nullable(str), sn: str, name: str }),
  space: nullable(object({ id: str, name: str })),
  score: num,
  snapshotUrl: nullable(str),
  delivery,
});
export type RecognitionEvent = ReturnType<typeof recognitionEventCheck>;

export const recognitionEvent = schema(recognitionEventCheck);
export const recognitionEventList = schema(
  object({ items: array(recognitionEventCheck), total: int }),
);
/** The stream's `delivery` message. */
export const deliveryChange = schema(object({ id: str, delivery }));

// ---- synchronization: the answers' schemas are in `@svc/shared` (sync-api.ts) ----

/**
 * The stream's `sync` message (`{id, personId, deviceId, action, state, attempts, errorCode}`,
 * server/src/sync/live.ts): only the person is read; the page then reloads that person's rows,
 * which also carry the error's words.
 */
export const syncChange = schema(object({ personId: optional(str) }));
