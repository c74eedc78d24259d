import type { AppContext } from '../../platform/context.js';
import type { NormalizedPhoto } from '../../photos/normalize.js';
import { insertEvents, type EventRecord } from '../store/events.js';

type Values = EventRecord;

interface Queued {
  values: Values;
  snapshot: NormalizedPhoto | undefined;
  resolve: (row: EventRecord) => void;
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

  constructor(private readonly ctx: Pick<AppContext, 'db' | 'photos'>) {}

  /** Resolves with the stored row once committed; rejects as create() would. */
  add(values: Values, snapshot?: NormalizedPhoto): Promise<EventRecord> {
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
    const { sequelize } = this.ctx.db;
    const rows = batch.map((item) => item.values);
    try {
      // One INSERT statement is atomic on its own: no transaction (on SQLite, Sequelize opens a
      // connection of its own for every transaction), unless snapshot files go with it.
      if (batch.every((item) => !item.snapshot)) {
        await insertEvents(sequelize, rows);
      } else {
        await sequelize.transaction(async (transaction) => {
          for (const item of batch) {
            if (item.snapshot) {
              item.values.snapshotSha256 = (
                await this.ctx.photos.save(item.snapshot, transaction)
              ).sha256;
            }
          }
          await insertEvents(sequelize, rows, transaction);
        });
      }
      batch.forEach((item) => item.resolve(item.values));
    } catch {
      for (const item of batch) await this.one(item);
    }
  }

  private async one(item: Queued): Promise<void> {
    const { sequelize } = this.ctx.db;
    try {
      const { snapshot } = item;
      if (snapshot) {
        await sequelize.transaction(async (transaction) => {
          item.values.snapshotSha256 = (await this.ctx.photos.save(snapshot, transaction)).sha256;
          await insertEvents(sequelize, [item.values], transaction);
        });
      } else {
        await insertEvents(sequelize, [item.values]);
      }
      item.resolve(item.values);
    } catch (err) {
      item.reject(err);
    }
  }
}
