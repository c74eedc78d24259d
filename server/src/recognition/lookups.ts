import { panelRoute, type PanelRoute } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { DeviceRow } from '../db/business-models.js';
import { hashDeviceKey } from '../devices/keys.js';
import { SettingKey } from '../settings/runtime-settings.js';

/** Most keys in one IN (…) list. */
const MAX_KEYS = 500;

/**
 * Collects the lookups that the requests of one turn of the event loop ask for, and answers
 * them with one query (`WHERE x IN (…)`) instead of one each. Nothing is cached: every answer
 * comes from a query that started after it was asked for.
 */
class Batcher<K, V> {
  private waiting = new Map<
    K,
    { resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[]
  >();

  constructor(private readonly load: (keys: K[]) => Promise<Map<K, V>>) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) {
        list.push({ resolve, reject });
        return;
      }
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += MAX_KEYS) {
      const part = keys.slice(i, i + MAX_KEYS);
      try {
        const found = await this.load(part);
        for (const k of part) for (const w of batch.get(k)!) w.resolve(found.get(k));
      } catch (err) {
        for (const k of part) for (const w of batch.get(k)!) w.reject(err);
      }
    }
  }
}

/** One read shared by the callers that ask while it is in flight. */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined;
    }));
}

export interface IntakeLookups {
  /** The device whose key this is (the caller checks the serial number). */
  deviceByKey(key: string): Promise<DeviceRow | undefined>;
  /** The record of an eventId: its id and the device that sent it. */
  eventById(eventId: string): Promise<{ id: string; deviceSn: string } | undefined>;
  person(id: string): Promise<{ id: string; name: string; organizationId: string } | undefined>;
  space(id: string): Promise<{ id: string; name: string; organizationId: string } | undefined>;
  panelRoute(): Promise<PanelRoute | undefined>;
}

function byKey<T, K>(rows: T[], key: (row: T) => K): Map<K, T> {
  return new Map(rows.map((r) => [key(r), r]));
}

export function intakeLookups(ctx: Pick<AppContext, 'models' | 'settings'>): IntakeLookups {
  const { models } = ctx;
  const devices = new Batcher(async (hashes: string[]) =>
    byKey(await models.Device.findAll({ where: { keyHash: hashes } }), (d) => d.keyHash),
  );
  const events = new Batcher(async (ids: string[]) =>
    byKey(
      await models.RecognitionEvent.findAll({
        where: { eventId: ids },
        attributes: ['id', 'eventId', 'deviceSn'],
        raw: true,
      }),
      (e) => e.eventId,
    ),
  );
  const people = new Batcher(async (ids: string[]) =>
    byKey(
      await models.Person.findAll({
        where: { id: ids },
        attributes: ['id', 'name', 'organizationId'],
        raw: true,
      }),
      (p) => p.id,
    ),
  );
  const spaces = new Batcher(async (ids: string[]) =>
    byKey(
      await models.Space.findAll({
        where: { id: ids },
        attributes: ['id', 'name', 'organizationId'],
        raw: true,
      }),
      (s) => s.id,
    ),
  );
  return {
    deviceByKey: (key) => devices.get(hashDeviceKey(key)),
    eventById: (eventId) => events.get(eventId),
    person: (id) => people.get(id),
    space: (id) => spaces.get(id),
    panelRoute: shared(() => ctx.settings.get(SettingKey.panelRoute, panelRoute)),
  };
}

const perService = new WeakMap<object, IntakeLookups>();

export function lookups(ctx: Pick<AppContext, 'models' | 'settings'>): IntakeLookups {
  let found = perService.get(ctx);
  if (!found) {
    found = intakeLookups(ctx);
    perService.set(ctx, found);
  }
  return found;
}
