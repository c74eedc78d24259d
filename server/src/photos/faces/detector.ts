import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import type { Job } from '../../platform/jobs/registry.js';
import type { Logger } from '../../platform/logger.js';
import { photoTimedOut } from './queue.js';
import type { FaceAnswer, FaceWorkerData, FoundFace, WorkerMessage } from './worker.js';

/**
 * Longest side the model sees. The detector works at 512 anyway; the landmark and descriptor
 * nets take a ~150 px face, which an 80 px face of a 1024 px photo still gives at 640.
 */
const ANALYSIS_SIDE = 640;
/**
 * Analyses kept by photo content: an import or a retried upload often sends the same photo
 * again. In memory only, a few hundred KB; gone with the process.
 */
const CACHE_SIZE = 64;
/**
 * After this long without a check, a worker that has worked is replaced by a fresh one: the
 * WASM heap grows to the largest inference's needs (~110 MB more) and never shrinks, so an
 * idle server would keep it. The fresh worker loads in the background (~1 s of CPU).
 */
const RECYCLE_IDLE_MS = 30_000;
/** A photo that takes longer than this fails its check rather than holding the caller. */
const ANALYZE_TIMEOUT_MS = 30_000;

/** What the model found, in the analysed photo's pixels (the stored JPEG's). */
export interface FaceAnalysis {
  width: number;
  height: number;
  faces: FoundFace[];
  sharpness: number | null;
  frontal: number | null;
  descriptor: Float32Array | null;
}

export interface FaceDetectorOptions {
  logger: Logger;
  /** Where the worker's script is; the default is the built worker.js beside this module. */
  workerUrl?: () => Promise<URL>;
}

interface Pending {
  resolve(answer: FaceAnswer): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** The built worker beside this module (server/dist); the tests give the source's own. */
async function builtWorker(): Promise<URL> {
  const url = new URL('./worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(`face model worker not found at ${url.pathname}: build the server first`);
  }
  return Promise.resolve(url);
}

/**
 * The face model, run off the event loop in one worker thread, loaded once (at start, in the
 * background: the server answers before it is ready; a check waits for it).
 */
export class FaceDetector implements Job {
  readonly name = 'face-model';
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly cache = new Map<string, FaceAnalysis>();
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly opts: FaceDetectorOptions) {}

  /** Loads the model in the background; a failure is logged and retried by the next check. */
  start(): void {
    this.load().catch((err: unknown) =>
      this.opts.logger.error({ err }, 'face model did not load; photos cannot be checked'),
    );
  }

  async stop(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.failAll(new Error('the face model stopped'));
    if (worker) await worker.terminate();
  }

  /** Whether the model is loaded (the heartbeat and the bench ask). */
  get loaded(): boolean {
    return this.worker !== undefined && this.ready !== undefined;
  }

  load(): Promise<void> {
    this.ready ??= this.spawn().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  private async spawn(): Promise<void> {
    const url = await (this.opts.workerUrl ?? builtWorker)();
    const started = Date.now();
    const workerData: FaceWorkerData = { resolveFrom: fileURLToPath(import.meta.url) };
    const worker = new Worker(url, { workerData });
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (msg: WorkerMessage) => {
        if ('ready' in msg) resolve();
        else if ('fatal' in msg) reject(new Error(`face model: ${msg.fatal}`));
        else this.settle(msg);
      });
      worker.on('error', (err) => {
        reject(err);
        this.lost(worker, err);
      });
      worker.on('exit', (code) => {
        reject(new Error(`face model worker exited (${code})`));
        this.lost(worker, new Error(`face model worker exited (${code})`));
      });
    });
    this.worker = worker;
    this.opts.logger.info({ ms: Date.now() - started }, 'face model loaded');
  }

  /** Replaces an idle worker by a fresh one (see RECYCLE_IDLE_MS). */
  private recycle(worker: Worker): void {
    if (this.worker !== worker || this.pending.size > 0) return;
    this.worker = undefined;
    this.ready = undefined;
    void worker.terminate();
    this.start();
  }

  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
    this.failAll(err);
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }

  private settle(answer: FaceAnswer): void {
    const p = this.pending.get(answer.id);
    if (!p) return;
    this.pending.delete(answer.id);
    clearTimeout(p.timer);
    if (answer.error) p.reject(new Error(`face model: ${answer.error}`));
    else p.resolve(answer);
  }

  /** Finds the faces of a (normalized) JPEG. */
  async analyze(jpeg: Buffer): Promise<FaceAnalysis> {
    const key = createHash('sha256').update(jpeg).digest('hex');
    const known = this.cache.get(key);
    if (known) return known;
    const analysis = await this.run(jpeg);
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, analysis);
    return analysis;
  }

  private async run(jpeg: Buffer): Promise<FaceAnalysis> {
    const meta = await sharp(jpeg).metadata();
    const { data, info } = await sharp(jpeg)
      .resize(ANALYSIS_SIDE, ANALYSIS_SIDE, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    await this.load();
    const worker = this.worker;
    if (!worker) throw new Error('the face model is not running');
    const id = this.nextId++;
    const rgb = new Uint8Array(data.buffer, data.byteOffset, data.length);
    clearTimeout(this.idle);
    const answer = await new Promise<FaceAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // A busy server, not a broken one: 503 with Retry-After, never a 500 (issue 32).
        reject(photoTimedOut(Math.ceil(ANALYZE_TIMEOUT_MS / 1000 / 4)));
      }, ANALYZE_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, rgb, width: info.width, height: info.height });
    });
    this.idle = setTimeout(() => this.recycle(worker), RECYCLE_IDLE_MS).unref();
    const width = meta.width ?? info.width;
    const height = meta.height ?? info.height;
    const scale = width / info.width;
    return {
      width,
      height,
      faces: answer.faces.map((f) => ({
        score: f.score,
        box: {
          x: f.box.x * scale,
          y: f.box.y * scale,
          width: f.box.width * scale,
          height: f.box.height * scale,
        },
      })),
      sharpness: answer.sharpness,
      frontal: answer.frontal,
      descriptor: answer.descriptor,
    };
  }
}
