import type { Transaction } from 'sequelize';
import type { z } from 'zod';
import type { Models } from '../db/models.js';
import type { Clock } from '../clock.js';

/**
 * Runtime settings: values an administrator (or the first start) saves in the database.
 * Unlike environment variables they survive restarts with other environments unchanged.
 */
export class RuntimeSettings {
  constructor(private readonly deps: { models: Models; clock: Clock }) {}

  async get<T extends z.ZodType>(key: string, schema: T): Promise<z.infer<T> | undefined> {
    const row = await this.deps.models.RuntimeSetting.findByPk(key);
    if (!row) return undefined;
    return schema.parse(JSON.parse(row.value));
  }

  async set(key: string, value: unknown, transaction?: Transaction): Promise<void> {
    await this.deps.models.RuntimeSetting.upsert(
      { key, value: JSON.stringify(value), updatedAt: this.deps.clock.now() },
      { transaction },
    );
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
} as const;
