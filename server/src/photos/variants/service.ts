import { jpegFrame } from '@svc/shared';
import type { Sequelize } from 'sequelize';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import type { PhotoStore } from '../store.js';
import { makeVariant } from './make.js';
import { fitsAsStored, profileKey, type PhotoProfile } from './profile.js';
import { VariantRows, type VariantRow } from './store.js';

/** What a device is sent of a photo: the bytes and their hash, or why it cannot take it. */
export type DevicePhoto =
  { sha256: string; data: Buffer } | { problem: string; fit: NonNullable<VariantRow['fit']> };

export interface PhotoVariantsDeps {
  sequelize: Sequelize;
  photos: PhotoStore;
  clock: Clock;
  logger: Logger;
}

/**
 * Per-device photo variants (issue 26): a device's profile decides what it is sent of a
 * stored photo — the photo itself when it fits, else a variant fitted to the profile, made
 * once per (photo, profile) and kept (a `files` entry and a photo_variants row), so a push
 * reads it like any photo. A device without limits always gets the stored photo.
 */
export class PhotoVariants {
  private readonly rows: VariantRows;
  /** Variants being made in this process: devices of one profile wait for the same one. */
  private readonly making = new Map<string, Promise<DevicePhoto | undefined>>();

  constructor(private readonly deps: PhotoVariantsDeps) {
    this.rows = new VariantRows(deps.sequelize);
  }

  /** What a device of this profile gets of the stored photo `source`; undefined when it is missing. */
  async photoFor(source: string, profile: PhotoProfile): Promise<DevicePhoto | undefined> {
    const key = profileKey(profile);
    if (key === '') return this.original(source);
    const row = await this.rows.find(source, key);
    if (row) {
      const kept = await this.fromRow(source, row);
      if (kept) return kept;
      // The variant's file is gone (the data volume restored from an older copy): made again.
      await this.rows.remove(source, key);
    }
    const id = `${key}:${source}`;
    let made = this.making.get(id);
    if (!made) {
      made = this.make(source, profile, key).finally(() => this.making.delete(id));
      this.making.set(id, made);
    }
    return made;
  }

  private async original(source: string): Promise<DevicePhoto | undefined> {
    const data = await this.deps.photos.read(source);
    return data && { sha256: source, data };
  }

  private async fromRow(source: string, row: VariantRow): Promise<DevicePhoto | undefined> {
    // A refusal written before its code and values: judged again, so it gets them.
    if (row.problem !== null) return row.fit ? { problem: row.problem, fit: row.fit } : undefined;
    if (row.variant === null) return this.original(source);
    const data = await this.deps.photos.read(row.variant);
    return data && { sha256: row.variant, data };
  }

  private async make(
    source: string,
    profile: PhotoProfile,
    key: string,
  ): Promise<DevicePhoto | undefined> {
    const data = await this.deps.photos.read(source);
    const frame = data && jpegFrame(data);
    if (!data || !frame) return undefined;
    const now = this.deps.clock.now();
    if (fitsAsStored(data, frame, profile)) {
      await this.rows.insert(source, key, { variant: null, problem: null, fit: null }, now);
      return { sha256: source, data };
    }
    const made = await makeVariant(data, frame, profile);
    if ('problem' in made) {
      const fit = { code: made.fit.code, params: made.fit.params };
      await this.rows.insert(source, key, { variant: null, problem: made.problem, fit }, now);
      return { problem: made.problem, fit };
    }
    const stored = await this.deps.sequelize.transaction(async (transaction) => {
      const file = await this.deps.photos.save(made.photo, transaction);
      await this.rows.insert(
        source,
        key,
        { variant: file.sha256, problem: null, fit: null },
        now,
        transaction,
      );
      return file;
    });
    this.deps.logger.debug(
      { source, profile: key, sha256: stored.sha256, bytes: stored.bytes },
      'photo variant made',
    );
    return { sha256: stored.sha256, data: made.photo.data };
  }
}
