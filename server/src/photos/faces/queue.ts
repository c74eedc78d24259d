import { ErrorCode } from '@svc/shared';
import { HttpError } from '../../platform/http/errors.js';

/**
 * The photo work of requests (decode and face check), bounded (issue 32): at most `capacity`
 * photos are in it, running or waiting; more are refused at once with 503 and `Retry-After`
 * rather than queued for a check that would time out. A waiting photo whose request has gone
 * is dropped before any work is done on it, and one that waits or runs past `timeoutMs` is
 * answered 503 (the work already running on it finishes, but holds its slot until then, so the
 * queue never overcommits).
 */
export interface PhotoQueueOptions {
  capacity: number;
  /** Photos worked on at once (the face model checks one at a time; decoding overlaps it). */
  concurrency: number;
  /** Waiting, and running too unless `boundRunning` is false. */
  timeoutMs: number;
  boundRunning?: boolean;
  /** Told about what was dropped or refused (logged by the caller). */
  onEvent?: (event: 'refused' | 'dropped' | 'timed_out') => void;
}

export interface QueueOptions {
  /** The request's: aborted when the client has gone. */
  signal?: AbortSignal | undefined;
  /**
   * Background work (an import's rows, one at a time each) is never refused nor timed out:
   * it waits its turn. It still counts, so requests see the queue full sooner.
   */
  background?: boolean;
}

/** Seconds a refused client should wait: about the time the queue in front needs. */
const RETRY_AFTER_MIN_S = 1;
const RETRY_AFTER_MAX_S = 30;

interface Waiting {
  start(): void;
  background: boolean;
}

export function photoBusy(retryAfterS: number): HttpError {
  return new HttpError(
    503,
    ErrorCode.serviceBusy,
    'The server is busy checking other photos; send this one again in a few seconds.',
    undefined,
    { 'Retry-After': String(retryAfterS) },
  );
}

export function photoTimedOut(retryAfterS: number): HttpError {
  return new HttpError(
    503,
    ErrorCode.serviceBusy,
    'Checking the photo took too long because the server is busy; send it again in a few seconds.',
    undefined,
    { 'Retry-After': String(retryAfterS) },
  );
}

/** The request has gone: nobody reads the answer (an HttpError, so it is not logged as a fault). */
export class RequestGone extends HttpError {
  constructor() {
    super(503, ErrorCode.serviceBusy, 'The request was abandoned before its photo was checked.');
  }
}

export class PhotoQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  /** Recent time one photo took, for Retry-After (an exponential average). */
  private avgMs = 1_000;

  constructor(private readonly opts: PhotoQueueOptions) {}

  /** Photos it holds at most, running or waiting. */
  get capacity(): number {
    return this.opts.capacity;
  }

  /** Photos in the queue, running or waiting. */
  get size(): number {
    return this.running + this.waiting.length;
  }

  /** About how long the photos already in the queue need, in whole seconds. */
  retryAfterS(): number {
    const s = Math.ceil((this.avgMs * (this.size + 1)) / this.opts.concurrency / 1000);
    return Math.min(RETRY_AFTER_MAX_S, Math.max(RETRY_AFTER_MIN_S, s));
  }

  /** Refuses at once when full: called before the upload's body is even read. */
  refuseIfFull(): void {
    if (this.size >= this.opts.capacity) {
      this.opts.onEvent?.('refused');
      throw photoBusy(this.retryAfterS());
    }
  }

  /** Runs `task` in its turn; see the class for what is refused, dropped and timed out. */
  async run<T>(task: () => Promise<T>, options: QueueOptions = {}): Promise<T> {
    const { signal, background = false } = options;
    if (signal?.aborted) throw new RequestGone();
    if (!background) this.refuseIfFull();
    // One deadline from arrival: the answer is due timeoutMs after the photo came.
    const deadline = performance.now() + this.opts.timeoutMs;
    await this.turn(signal, background, deadline);
    const started = performance.now();
    const work = task().finally(() => {
      this.avgMs = this.avgMs * 0.8 + (performance.now() - started) * 0.2;
      this.running--;
      this.next();
    });
    if (background || this.opts.boundRunning === false) return work;
    return this.bounded(work, signal, deadline);
  }

  /** Waits for a slot; a request that goes or waits too long leaves the queue unserved. */
  private turn(
    signal: AbortSignal | undefined,
    background: boolean,
    deadline: number,
  ): Promise<void> {
    if (this.running < this.opts.concurrency && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        background,
        start: () => {
          cleanup();
          resolve();
        },
      };
      const leave = (err: Error, event: 'dropped' | 'timed_out') => {
        const at = this.waiting.indexOf(entry);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        cleanup();
        this.opts.onEvent?.(event);
        reject(err);
      };
      const onAbort = () => leave(new RequestGone(), 'dropped');
      const timer = background
        ? undefined
        : setTimeout(
            () => leave(photoTimedOut(this.retryAfterS()), 'timed_out'),
            deadline - performance.now(),
          );
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private next(): void {
    while (this.running < this.opts.concurrency) {
      const entry = this.waiting.shift();
      if (!entry) return;
      this.running++;
      entry.start();
    }
  }

  /** The answer to the caller: the task's, or 503 past the deadline (the task goes on). */
  private bounded<T>(
    work: Promise<T>,
    signal: AbortSignal | undefined,
    deadline: number,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.opts.onEvent?.('timed_out');
        reject(photoTimedOut(this.retryAfterS()));
      }, deadline - performance.now());
      const onAbort = () => reject(new RequestGone());
      signal?.addEventListener('abort', onAbort, { once: true });
      work
        .then(resolve, reject)
        .finally(() => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        })
        .catch(() => undefined);
    });
  }
}
