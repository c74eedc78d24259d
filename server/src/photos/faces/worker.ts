/**
 * The face model's thread: @vladmandic/face-api on the WASM backend, loaded once from the files
 * in node_modules (nothing is fetched). It imports no module of this project, so the test
 * harness can run it from its source too (test/face-worker.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type * as FaceApi from '@vladmandic/face-api';
import type * as Tf from '@tensorflow/tfjs';

/** One photo, already decoded to RGB by the caller (sharp, on the main thread's pool). */
export interface FaceRequest {
  id: number;
  rgb: Uint8Array;
  width: number;
  height: number;
}

export interface FoundFace {
  box: { x: number; y: number; width: number; height: number };
  score: number;
}

/** In the request's pixels. Landmark-based measures and the descriptor only for a single face. */
export interface FaceAnswer {
  id: number;
  faces: FoundFace[];
  sharpness: number | null;
  frontal: number | null;
  descriptor: Float32Array | null;
  error?: string;
}

export type WorkerMessage = { ready: true } | { fatal: string } | FaceAnswer;

export interface FaceWorkerData {
  /** A file whose node_modules resolve the model packages (the worker may run from a copy). */
  resolveFrom: string;
}

/**
 * Tiny face detector at 512: 2–4× faster than SSD-MobileNet here, and it found at least two
 * faces in every demo group photo (at 416 it missed one in sample2). Faces under 0.5 don't count.
 */
const DETECTOR_INPUT = 512;
const MIN_SCORE = 0.5;
const SHARPNESS_SIDE = 112;
const PAD = 1.5;

type Api = typeof FaceApi;
type Model = { faceapi: Api; tf: typeof Tf };
type Point = { x: number; y: number };

async function load(): Promise<Model> {
  const { resolveFrom } = workerData as FaceWorkerData;
  const require = createRequire(resolveFrom);
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as Api;
  // The same module instance face-api bundles against (it requires @tensorflow/tfjs).
  const tf = require('@tensorflow/tfjs') as typeof Tf;
  const wasm = require('@tensorflow/tfjs-backend-wasm') as {
    setWasmPaths(prefix: string): void;
  };
  const wasmFile = require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm');
  // A directory path, not a URL: the backend then reads the .wasm with fs, never over fetch.
  wasm.setWasmPaths(path.dirname(wasmFile) + path.sep);
  await tf.setBackend('wasm');
  await tf.ready();
  const models = path.join(
    path.dirname(require.resolve('@vladmandic/face-api/package.json')),
    'model',
  );
  await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(models);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
  return { faceapi, tf };
}

/** 1 looking at the camera, 0 in profile: where the nose tip sits between the jaw's ends. */
function frontalOf(points: readonly Point[]): number {
  const mid = (from: number, to: number) => {
    const part = points.slice(from, to + 1);
    return {
      x: part.reduce((s, p) => s + p.x, 0) / part.length,
      y: part.reduce((s, p) => s + p.y, 0) / part.length,
    };
  };
  const left = mid(36, 41);
  const right = mid(42, 47);
  const len = Math.hypot(right.x - left.x, right.y - left.y) || 1;
  // Measured along the eye line, so a tilted head is not taken for a turned one.
  const along = (p: Point) => (p.x * (right.x - left.x) + p.y * (right.y - left.y)) / len;
  const [jawL, jawR, nose] = [points[0]!, points[16]!, points[30]!];
  const span = along(jawR) - along(jawL);
  if (span <= 0) return 0;
  const ratio = (along(nose) - along(jawL)) / span;
  return Math.max(0, 1 - 2 * Math.abs(ratio - 0.5));
}

/** Variance of the Laplacian of the grey face at a fixed size: low when blurred. */
function sharpnessOf(tf: typeof Tf, face: Tf.Tensor3D): number {
  return tf.tidy(() => {
    const grey = tf
      .mean(tf.cast(face, 'float32'), 2)
      .expandDims<Tf.Tensor4D>(0)
      .expandDims<Tf.Tensor4D>(-1);
    const small = tf.image.resizeBilinear(grey, [SHARPNESS_SIDE, SHARPNESS_SIDE]);
    const kernel = tf.tensor4d([0, 1, 0, 1, -4, 1, 0, 1, 0], [3, 3, 1, 1]);
    const edges = tf.conv2d(small, kernel, 1, 'valid');
    return tf.moments(edges).variance.dataSync()[0] ?? 0;
  });
}

async function analyze({ faceapi, tf }: Model, req: FaceRequest): Promise<FaceAnswer> {
  let input = faceapi.tf.tensor3d(req.rgb, [req.height, req.width, 3], 'int32');
  try {
    const options = new faceapi.TinyFaceDetectorOptions({
      inputSize: DETECTOR_INPUT,
      scoreThreshold: MIN_SCORE,
    });
    let found = await faceapi.detectAllFaces(input, options).withFaceLandmarks();
    let shift = { x: 0, y: 0 };
    if (found.length === 0) {
      // The tiny detector misses a face that fills most of the frame (a tight portrait crop):
      // look again with the photo centred on a grey canvas 1.5 times its size.
      const side = Math.round(Math.max(req.width, req.height) * PAD);
      shift = { x: Math.floor((side - req.width) / 2), y: Math.floor((side - req.height) / 2) };
      const padded = tf.pad(
        input as unknown as Tf.Tensor3D,
        [
          [shift.y, side - req.height - shift.y],
          [shift.x, side - req.width - shift.x],
          [0, 0],
        ],
        128,
      );
      input.dispose();
      input = padded as unknown as typeof input;
      found = await faceapi.detectAllFaces(input, options).withFaceLandmarks();
    }
    const faces = found.map(({ detection }) => ({
      box: {
        x: detection.box.x - shift.x,
        y: detection.box.y - shift.y,
        width: detection.box.width,
        height: detection.box.height,
      },
      score: detection.score,
    }));
    const answer: FaceAnswer = {
      id: req.id,
      faces,
      sharpness: null,
      frontal: null,
      descriptor: null,
    };
    const only = found.length === 1 ? found[0] : undefined;
    if (!only) return answer;
    answer.frontal = frontalOf(only.landmarks.positions);
    // The descriptor is computed on the face aligned by its landmarks, as face-api does.
    const rect = only.landmarks.align(null, { useDlibAlignment: true });
    const [face] = await faceapi.extractFaceTensors(input, [rect]);
    if (!face) return answer;
    try {
      answer.sharpness = sharpnessOf(tf, face as unknown as Tf.Tensor3D);
      answer.descriptor = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(
        face,
      )) as Float32Array;
    } finally {
      face.dispose();
    }
    return answer;
  } finally {
    input.dispose();
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  let model: Model;
  try {
    model = await load();
  } catch (err) {
    port.postMessage({ fatal: (err as Error).message } satisfies WorkerMessage);
    return;
  }
  // One photo at a time: the model is single-threaded, the caller queues.
  let queue = Promise.resolve();
  port.on('message', (req: FaceRequest) => {
    queue = queue.then(async () => {
      let answer: FaceAnswer;
      try {
        answer = await analyze(model, req);
      } catch (err) {
        answer = {
          id: req.id,
          faces: [],
          sharpness: null,
          frontal: null,
          descriptor: null,
          error: (err as Error).message,
        };
      }
      port.postMessage(answer satisfies WorkerMessage);
    });
  });
  port.postMessage({ ready: true } satisfies WorkerMessage);
}

void main();
