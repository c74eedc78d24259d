import type { Transaction } from 'sequelize';
import type { z } from 'zod';
import type { Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';

/**
 * Runtime settings: values an administrator (or the first start) saves in the database.
 * Unlike environment variables they survive restarts with other environments unchanged.
 */
export class RuntimeSettings {
  /** Values read through `cached`, with the time they were read. */
  private readonly recent = new Map<string, { at: number; value: unknown }>();

  constructor(private readonly deps: { models: Models; clock: Clock }) {}

  /**
   * A value read on hot paths (every session read): kept for `maxAgeMs`. This process's own
   * writes show at once; another replica's within `maxAgeMs`.
   */
  async cached<T extends z.ZodType>(
    key: string,
    schema: T,
    maxAgeMs: number,
  ): Promise<z.infer<T> | undefined> {
    const now = this.deps.clock.now().getTime();
    const hit = this.recent.get(key);
    if (hit && now - hit.at < maxAgeMs && now >= hit.at) return hit.value as z.infer<T> | undefined;
    const value = await this.get(key, schema);
    this.recent.set(key, { at: now, value });
    return value;
  }

  async get<T extends z.ZodType>(key: string, schema: T): Promise<z.infer<T> | undefined> {
    const row = await this.deps.models.RuntimeSetting.findByPk(key);
    if (!row) return undefined;
    return schema.parse(JSON.parse(row.value));
  }

  async set(key: string, value: unknown, transaction?: Transaction): Promise<void> {
    this.recent.delete(key);
    await this.deps.models.RuntimeSetting.upsert(
      { key, value: JSON.stringify(value), updatedAt: this.deps.clock.now() },
      { transaction },
    );
  }

  /** Removes the key: its default applies again. */
  async remove(key: string, transaction?: Transaction): Promise<void> {
    this.recent.delete(key);
    await this.deps.models.RuntimeSetting.destroy({ where: { key }, transaction });
  }

  /** Writes only when the key is absent; returns whether it wrote. */
  async setIfAbsent(key: string, value: unknown, transaction?: Transaction): Promise<boolean> {
    const [, created] = await this.deps.models.RuntimeSetting.findOrCreate({
      where: { key },
      defaults: { key, value: JSON.stringify(value), updatedAt: this.deps.clock.now() },
      transaction,
    });
    return created;
  }
}

export const SettingKey = {
  initializedAt: 'initialized_at',
  release: 'initialized_release',
  csrfSecret: 'csrf_secret',
  panelRoute: 'panel_route',
  /**
   * Changed (a new random value) by every deletion of a person: the sync planner's sign that
   * a plan of the people edited since its last one would miss someone (sync/planning/full-plan.ts).
   */
  peopleDeleted: 'people_deleted',
  /** The zone the site shows times in (an IANA name); absent: the server's own. */
  timeZone: 'time_zone',
} as const;
