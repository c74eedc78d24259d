import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Models } from '../platform/db/models.js';
import type { Logger } from '../platform/logger.js';
import type { Clock } from '../platform/clock.js';
import { normalizePhoto, type NormalizedPhoto } from './normalize.js';

export interface StoredPhoto {
  sha256: string;
  bytes: number;
  width: number;
  height: number;
}

/**
 * Person photos and other files: checked by content (real JPEG/PNG), normalized (JPEG, longest
 * side ≤ 1024 px, no metadata), stored content-addressed under DATA_DIR, paths derived from the
 * hash only — never from request data.
 */
export interface PhotoStore {
  /**
   * Validates, normalizes and stores an uploaded image; throws an HttpError (400/413/415) if
   * refused. With a transaction, the files row is written in it, so a rolled-back caller leaves
   * nothing referenced behind (a stray file on disk is swept later).
   */
  ingest(input: Buffer, opts?: { transaction?: Transaction }): Promise<StoredPhoto>;
  /**
   * ingest() in two steps, for callers that store the reference in a transaction: normalize
   * first (CPU-heavy, outside any transaction), then save() inside it.
   */
  normalize(input: Buffer): Promise<NormalizedPhoto>;
  save(photo: NormalizedPhoto, transaction?: Transaction): Promise<StoredPhoto>;
  /** The stored JPEG bytes, or undefined when absent. */
  read(sha256: string): Promise<Buffer | undefined>;
  /** Removes the file (row and bytes) when nothing references it any more; true if removed. */
  releaseIfUnreferenced(sha256: string): Promise<boolean>;
  /** Removes every unreferenced file; returns how many. */
  sweepOrphans(): Promise<number>;
}

export interface PhotoStoreDeps {
  dataDir: string;
  sequelize: Sequelize;
  models: Models;
  clock: Clock;
  logger: Logger;
}

/**
 * Every column that may hold a files.sha256. A file is kept while any of them names it; a
 * feature that stores file references (event snapshots, …) adds its (table, column) here.
 * The reference columns should be indexed: the checks below look them up by value.
 */
export const FILE_REFERENCES: readonly { table: string; column: string }[] = [
  { table: 'people', column: 'photo_sha256' },
  { table: 'recognition_events', column: 'snapshot_sha256' },
  // Re-enrollments held for review keep both photos until the person is erased.
  { table: 'enrollment_changes', column: 'old_photo_sha256' },
  { table: 'enrollment_changes', column: 'new_photo_sha256' },
  // A device variant is kept while its row is (erased with its source photo: variants/).
  { table: 'photo_variants', column: 'variant_sha256' },
];
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
for (const ref of FILE_REFERENCES) {
  // Identifiers are spliced into SQL: constants of this module only, and checked anyway.
  if (!IDENTIFIER.test(ref.table) || !IDENTIFIER.test(ref.column)) {
    throw new Error(`bad file reference ${ref.table}.${ref.column}`);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const STORED_NAME = /^([0-9a-f]{64})\.jpg$/;
const TEMP_NAME = /^[0-9a-f]{64}\.jpg\.[0-9a-f]{12}\.tmp$/;
const SHARD = /^[0-9a-f]{2}$/;
/**
 * A file row or file on disk younger than this is never swept: an upload stores its file
 * before the reference to it is committed.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;
const BATCH = 500;

export const isSha256 = (value: string) => SHA256.test(value);

export function createPhotoStore(deps: PhotoStoreDeps): PhotoStore {
  return new FileStore(deps);
}

class FileStore implements PhotoStore {
  private readonly root: string;

  constructor(private readonly deps: PhotoStoreDeps) {
    this.root = path.join(deps.dataDir, 'files');
  }

  /** The only way a path is made: from a validated hash, never from request data. */
  private pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new Error('not a SHA-256 hex digest');
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.jpg`);
  }

  normalize(input: Buffer): Promise<NormalizedPhoto> {
    return normalizePhoto(input);
  }

  async ingest(input: Buffer, opts: { transaction?: Transaction } = {}): Promise<StoredPhoto> {
    return this.save(await normalizePhoto(input), opts.transaction);
  }

  async save(photo: NormalizedPhoto, transaction?: Transaction): Promise<StoredPhoto> {
    if (!transaction) {
      return this.deps.sequelize.transaction((t) => this.save(photo, t));
    }
    const sha256 = createHash('sha256').update(photo.data).digest('hex');
    const now = this.deps.clock.now();
    // The upsert comes first: on MySQL it locks the row, so a concurrent release of the same
    // hash (which locks it too) either finishes before this — and this rewrites the file — or
    // waits and then sees the new reference. createdAt is refreshed: it dates the last upload,
    // which is what the sweep's grace period needs.
    await this.deps.models.File.upsert(
      {
        sha256,
        mediaType: 'image/jpeg',
        bytes: photo.data.length,
        width: photo.width,
        height: photo.height,
        createdAt: now,
      },
      { transaction },
    );
    await this.writeFile(sha256, photo.data, now);
    return { sha256, bytes: photo.data.length, width: photo.width, height: photo.height };
  }

  /** Writes under a temporary name and renames, so a reader never sees a partial file. */
  private async writeFile(sha256: string, data: Buffer, now: Date): Promise<void> {
    const file = this.pathOf(sha256);
    try {
      const existing = await stat(file);
      if (existing.size === data.length) {
        // Same content (the name is its hash): keep it, but date it so the sweep spares it.
        await utimes(file, now, now);
        return;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await utimes(temp, now, now);
      await rename(temp, file);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(sha256: string): Promise<Buffer | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      return await readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  private async referenced(sha256: string, transaction: Transaction): Promise<boolean> {
    for (const { table, column } of FILE_REFERENCES) {
      const rows = await this.deps.sequelize.query(
        `SELECT 1 AS one FROM ${table} WHERE ${column} = ? LIMIT 1`,
        { replacements: [sha256], type: QueryTypes.SELECT, transaction },
      );
      if (rows.length > 0) return true;
    }
    return false;
  }

  releaseIfUnreferenced(sha256: string): Promise<boolean> {
    return this.release(sha256);
  }

  /** With `olderThan`, a row stored (or stored again) since then is kept: the sweep's grace. */
  private async release(sha256: string, olderThan?: Date): Promise<boolean> {
    if (!isSha256(sha256)) return false;
    const { models, sequelize } = this.deps;
    const removed = await sequelize.transaction(async (transaction) => {
      const row = await models.File.findByPk(sha256, {
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (olderThan && (!row || row.createdAt >= olderThan)) return false;
      if (await this.referenced(sha256, transaction)) return false;
      if (row) await row.destroy({ transaction });
      // Unlinked before commit, while the row lock is held: a concurrent save() of the same
      // hash waits for the commit and then writes the file again.
      await rm(this.pathOf(sha256), { force: true });
      return row !== null;
    });
    if (removed) this.deps.logger.debug({ sha256 }, 'unreferenced file removed');
    return removed;
  }

  async sweepOrphans(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - ORPHAN_GRACE_MS);
    const rows = await this.sweepRows(cutoff);
    const strays = await this.sweepStrayFiles(cutoff);
    if (rows + strays > 0) this.deps.logger.info({ rows, strays }, 'orphan files removed');
    return rows + strays;
  }

  /** Unreferenced files rows older than the grace period, with their files. */
  private async sweepRows(cutoff: Date): Promise<number> {
    const unreferenced = FILE_REFERENCES.map(
      ({ table, column }) => `NOT EXISTS (SELECT 1 FROM ${table} r WHERE r.${column} = f.sha256)`,
    ).join(' AND ');
    let after = '';
    let removed = 0;
    for (;;) {
      const batch = await this.deps.sequelize.query<{ sha256: string }>(
        `SELECT f.sha256 FROM files f WHERE f.sha256 > ? AND f.created_at < ? AND ${unreferenced} ORDER BY f.sha256 LIMIT ${BATCH}`,
        { replacements: [after, cutoff], type: QueryTypes.SELECT },
      );
      for (const { sha256 } of batch) {
        if (await this.release(sha256, cutoff)) removed++;
      }
      if (batch.length < BATCH) return removed;
      after = batch[batch.length - 1]!.sha256;
    }
  }

  /**
   * Files on disk without a row (a crash between writing and committing, a rolled-back upload)
   * and abandoned temporary files, once older than the grace period.
   */
  private async sweepStrayFiles(cutoff: Date): Promise<number> {
    let removed = 0;
    for (const a of await listDir(this.root)) {
      if (!SHARD.test(a)) continue;
      for (const b of await listDir(path.join(this.root, a))) {
        if (!SHARD.test(b)) continue;
        removed += await this.sweepShard(path.join(this.root, a, b), cutoff);
      }
    }
    return removed;
  }

  private async sweepShard(dir: string, cutoff: Date): Promise<number> {
    const names = await listDir(dir);
    const hashes = names.flatMap((n) => STORED_NAME.exec(n)?.[1] ?? []);
    const known = new Set<string>();
    for (let i = 0; i < hashes.length; i += BATCH) {
      const rows = await this.deps.models.File.findAll({
        attributes: ['sha256'],
        where: { sha256: { [Op.in]: hashes.slice(i, i + BATCH) } },
      });
      for (const r of rows) known.add(r.sha256);
    }
    let removed = 0;
    for (const name of names) {
      const stored = STORED_NAME.exec(name)?.[1];
      if (stored === undefined ? !TEMP_NAME.test(name) : known.has(stored)) continue;
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile() || info.mtime >= cutoff) continue;
      await rm(file, { force: true });
      removed++;
    }
    return removed;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
