import { panelRoute, type PanelRoute } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import { hashDeviceKey } from '../../devices/keys.js';
import { SettingKey } from '../../settings/runtime-settings.js';
import { EVENT_TABLE, marks, selectRows } from '../store/events.js';

/** Most keys in one IN (…) list. */
const MAX_KEYS = 500;

/**
 * Collects lookups and answers them with one query (`WHERE x IN (…)`) instead of one each, like
 * the event writer's group commit: the keys asked for in one turn of the event loop, and while a
 * query is running, the keys asked for meanwhile, go together in the next one — at most one
 * query in flight per kind. A query per turn made thousands of small statements a second under
 * load, and on SQLite (one connection, statements in a row) each then waited ~10 ms behind the
 * others. Nothing is cached: every answer comes from a query that started after it was asked for.
 */
class Batcher<K, V> {
  private waiting = new Map<
    K,
    { resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[]
  >();
  private busy = false;

  constructor(private readonly load: (keys: K[]) => Promise<Map<K, V>>) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) {
        list.push({ resolve, reject });
        return;
      }
      this.waiting.set(key, [{ resolve, reject }]);
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) await this.flush();
    this.busy = false;
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

/** What intake needs of the device that sent an event. */
export interface IntakeDevice {
  id: string;
  sn: string;
  name: string;
  enabled: boolean;
  organizationId: string;
  spaceId: string | null;
  keyHash: string;
  /** The device's space as it is now (read with the device: one statement, one snapshot). */
  space: { id: string; name: string; organizationId: string } | null;
}

export interface IntakeLookups {
  /** The device whose key this is (the caller checks the serial number). */
  deviceByKey(key: string): Promise<IntakeDevice | undefined>;
  /** The record of an eventId: its id and the device that sent it. */
  eventById(eventId: string): Promise<{ id: string; deviceSn: string } | undefined>;
  person(id: string): Promise<{ id: string; name: string; organizationId: string } | undefined>;
  panelRoute(): Promise<PanelRoute | undefined>;
}

type DeviceRow = Omit<IntakeDevice, 'enabled' | 'space'> & {
  enabled: unknown;
  spaceName: string | null;
  spaceOrganizationId: string | null;
};

function byKey<T, K>(rows: T[], key: (row: T) => K): Map<K, T> {
  return new Map(rows.map((r) => [key(r), r]));
}

export function intakeLookups(ctx: Pick<AppContext, 'db' | 'settings'>): IntakeLookups {
  const { sequelize } = ctx.db;
  // Raw rows (sql.ts): these run for every event, model instances cost more than the query.
  const devices = new Batcher(async (hashes: string[]) =>
    byKey(
      (
        await selectRows<DeviceRow>(
          sequelize,
          `SELECT d.id, d.sn, d.name, d.enabled, d.organization_id AS organizationId,
             d.space_id AS spaceId, d.key_hash AS keyHash, s.name AS spaceName,
             s.organization_id AS spaceOrganizationId
           FROM devices d LEFT JOIN spaces s ON s.id = d.space_id
           WHERE d.key_hash IN (${marks(hashes.length)})`,
          hashes,
        )
      ).map(({ spaceName, spaceOrganizationId, ...d }) => ({
        ...d,
        enabled: Boolean(Number(d.enabled)),
        space:
          d.spaceId !== null && spaceName !== null && spaceOrganizationId !== null
            ? { id: d.spaceId, name: spaceName, organizationId: spaceOrganizationId }
            : null,
      })),
      (d) => d.keyHash,
    ),
  );
  const events = new Batcher(async (ids: string[]) =>
    byKey(
      await selectRows<{ id: string; eventId: string; deviceSn: string }>(
        sequelize,
        `SELECT id, event_id AS eventId, device_sn AS deviceSn FROM ${EVENT_TABLE}
           WHERE event_id IN (${marks(ids.length)})`,
        ids,
      ),
      (e) => e.eventId,
    ),
  );
  const people = new Batcher(async (ids: string[]) =>
    byKey(
      await selectRows<{ id: string; name: string; organizationId: string }>(
        sequelize,
        `SELECT id, name, organization_id AS organizationId FROM people
           WHERE id IN (${marks(ids.length)})`,
        ids,
      ),
      (r) => r.id,
    ),
  );
  return {
    deviceByKey: (key) => devices.get(hashDeviceKey(key)),
    eventById: (eventId) => events.get(eventId),
    person: (id) => people.get(id),
    panelRoute: shared(() => ctx.settings.get(SettingKey.panelRoute, panelRoute)),
  };
}
