import type { CreationAttributes } from 'sequelize';
import type { AppContext } from '../context.js';
import type { RecognitionEventRow } from '../db/business-models.js';
import type { NormalizedPhoto } from '../photos/normalize.js';

type Values = CreationAttributes<RecognitionEventRow>;

interface Queued {
  values: Values;
  snapshot: NormalizedPhoto | undefined;
  resolve: (row: RecognitionEventRow) => void;
  reject: (err: unknown) => void;
}

/** Most events per write; a bigger flush holds SQLite's write lock for longer. */
export const MAX_FLUSH = 500;

/**
 * Group commit for intake: the events that arrive while one write is in progress are inserted
 * together by the next, in one transaction and one multi-row INSERT. One transaction per event
 * made every request take SQLite's write lock on its own (and on MySQL, wait for its own
 * commit), which capped intake far below the rate devices can send. A device still gets its
 * answer only after its event is committed.
 *
 * When a batch fails (a duplicate eventId racing in, a bad snapshot file, a lost connection)
 * its events are written again one by one, so one event's failure is only its own.
 */
export class EventWriter {
  private queue: Queued[] = [];
  private flushing = false;

  constructor(private readonly ctx: Pick<AppContext, 'db' | 'models' | 'photos'>) {}

  /** Resolves with the stored row once committed; rejects as create() would. */
  add(values: Values, snapshot?: NormalizedPhoto): Promise<RecognitionEventRow> {
    return new Promise((resolve, reject) => {
      this.queue.push({ values, snapshot, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = true;
    // The requests that arrive in this same turn of the event loop join this write.
    setImmediate(() => {
      void this.flush().finally(() => {
        this.flushing = false;
        this.kick();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_FLUSH);
    if (batch.length === 1) {
      await this.one(batch[0]!);
      return;
    }
    try {
      const plain = batch.every((item) => !item.snapshot);
      // One INSERT statement is atomic on its own: no transaction (on SQLite, Sequelize opens a
      // connection of its own for every transaction).
      const rows = plain
        ? await this.ctx.models.RecognitionEvent.bulkCreate(
            batch.map((item) => item.values),
            { validate: false, hooks: false },
          )
        : await this.ctx.db.sequelize.transaction(async (transaction) => {
            for (const item of batch) {
              if (item.snapshot) {
                item.values.snapshotSha256 = (
                  await this.ctx.photos.save(item.snapshot, transaction)
                ).sha256;
              }
            }
            return this.ctx.models.RecognitionEvent.bulkCreate(
              batch.map((item) => item.values),
              { transaction, validate: false, hooks: false },
            );
          });
      batch.forEach((item, i) => item.resolve(rows[i]!));
    } catch {
      for (const item of batch) await this.one(item);
    }
  }

  private async one(item: Queued): Promise<void> {
    try {
      const { snapshot } = item;
      const row = snapshot
        ? await this.ctx.db.sequelize.transaction(async (transaction) => {
            item.values.snapshotSha256 = (await this.ctx.photos.save(snapshot, transaction)).sha256;
            return this.ctx.models.RecognitionEvent.create(item.values, { transaction });
          })
        : await this.ctx.models.RecognitionEvent.create(item.values);
      item.resolve(row);
    } catch (err) {
      item.reject(err);
    }
  }
}

const writers = new WeakMap<object, EventWriter>();

export function eventWriter(ctx: Pick<AppContext, 'db' | 'models' | 'photos'>): EventWriter {
  let writer = writers.get(ctx);
  if (!writer) {
    writer = new EventWriter(ctx);
    writers.set(ctx, writer);
  }
  return writer;
}
