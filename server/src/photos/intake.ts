import type { Response } from 'express';
import type { Transaction } from 'sequelize';
import type { AppContext } from '../platform/context.js';
import type { Logger } from '../platform/logger.js';
import { PhotoQueue, type QueueOptions } from './faces/queue.js';

/** A photo's decode and face check is answered within this, or 503 (never a 500). */
const PHOTO_WORK_TIMEOUT_MS = 30_000;
/**
 * Photos decoded and checked at once. One: the face model checks one at a time anyway, and a
 * large photo's decode holds a thread of libuv's pool, which sign-ins (password hashing) and
 * every SQLite statement need too; with two, a burst held half the pool and sign-ins waited.
 */
const PHOTO_WORK_CONCURRENCY = 1;
/**
 * Photo-storing transactions waiting their turn. On SQLite they run one at a time in this
 * process: every transaction there is a connection of its own that takes the write lock at
 * BEGIN, and a crowd of them only waits in the driver's busy loop, each holding a descriptor
 * and a thread of the pool that the lock's holder needs to finish.
 */
const PHOTO_WRITES_WAITING = 16;
const PHOTO_WRITE_TIMEOUT_MS = 15_000;
/** Refusals and drops are logged at most this often, with their counts. */
const LOG_EVERY_MS = 10_000;

export interface PhotoWork {
  /** Decoding and face checks of uploaded photos (uploads, enrollment terminals, imports). */
  checks: PhotoQueue;
  /** The transactions that store a checked photo. */
  writes: PhotoQueue;
}

export function photoWork(
  dialect: 'sqlite' | 'mysql',
  capacity: number,
  logger: Logger,
): PhotoWork {
  const counts = { refused: 0, dropped: 0, timed_out: 0 };
  let lastLog = 0;
  const onEvent = (event: keyof typeof counts) => {
    counts[event]++;
    const now = Date.now();
    if (now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    logger.warn({ ...counts }, 'photo uploads beyond what the server can check at once');
    counts.refused = counts.dropped = counts.timed_out = 0;
  };
  return {
    checks: new PhotoQueue({
      capacity,
      concurrency: PHOTO_WORK_CONCURRENCY,
      timeoutMs: PHOTO_WORK_TIMEOUT_MS,
      onEvent,
    }),
    writes: new PhotoQueue({
      capacity: dialect === 'sqlite' ? PHOTO_WRITES_WAITING + 1 : capacity + PHOTO_WRITES_WAITING,
      concurrency: dialect === 'sqlite' ? 1 : capacity,
      timeoutMs: PHOTO_WRITE_TIMEOUT_MS,
      // A transaction that has begun is waited for: a 503 for a photo then stored would lie.
      boundRunning: false,
      onEvent,
    }),
  };
}

/** Aborted when the client goes before its answer is sent (queued work is then dropped). */
export function requestGone(res: Response): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}

/**
 * A request's photo work: refused at once when the queue is full (before the body is read),
 * then `read` (the body) and `work` (decode, face check) in the queue's turn.
 */
export async function queuedPhoto<B, T>(
  ctx: Pick<AppContext, 'photoWork'>,
  res: Response,
  read: () => Promise<B>,
  work: (body: B) => Promise<T>,
): Promise<T> {
  ctx.photoWork.checks.refuseIfFull();
  const signal = requestGone(res);
  const body = await read();
  return ctx.photoWork.checks.run(() => work(body), { signal });
}

/** The transaction that stores a checked photo, in the bounded queue of photo writes. */
export function photoTransaction<T>(
  ctx: Pick<AppContext, 'photoWork' | 'db'>,
  fn: (t: Transaction) => Promise<T>,
  options: QueueOptions = {},
): Promise<T> {
  return ctx.photoWork.writes.run(() => ctx.db.sequelize.transaction(fn), options);
}
