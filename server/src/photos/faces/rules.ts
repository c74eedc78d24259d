import type { FaceAnalysis } from './detector.js';

/**
 * Below this the face is too blurred for a device to enroll (variance of the Laplacian at
 * 112 × 112: the sharp demo crops measure 220–320, the same crops blurred by σ = 2 43–51).
 */
export const MIN_SHARPNESS = 80;
/**
 * Below this the face is turned too far: the nose a third of the way from the jaw's end
 * (a head tilted to one side, as in demo sample1's left face, measures 0.46).
 */
export const MIN_FRONTAL = 0.35;
/**
 * Descriptor distance under which another person's face "looks like" this one. face-api's own
 * same-person cut is 0.6; on the demo photos the same woman in two of them measures 0.46 and
 * the closest two different women 0.59, so 0.55 warns about likely matches only.
 */
export const LOOKALIKE_DISTANCE = 0.55;

/** What the strictest device receiving the person asks of the face. */
export interface FaceRequirement {
  /** Face height needed in the stored photo's pixels. */
  minHeight: number;
  /** The face height the device itself asks for (in the photo it receives). */
  devicePx: number;
  /** The longest side of the photo that device receives when smaller than the stored one. */
  deviceSide: number | null;
  /** "devices in Gate A", or null when it is the server's default (FACE_MIN_PX). */
  who: string | null;
}

/** Every problem of the photo, each in plain words with what to do; empty when it passes. */
export function faceProblems(a: FaceAnalysis, need: FaceRequirement): string[] {
  if (a.faces.length === 0) {
    return ['no face found: use a photo of the person’s face, looking at the camera'];
  }
  if (a.faces.length > 1) return [`${a.faces.length} faces found: crop to one person`];
  const face = a.faces[0]!;
  const problems: string[] = [];
  const height = Math.round(face.box.height);
  if (height < need.minHeight) {
    const shown =
      need.deviceSide !== null
        ? `the face is ${height} px high, ${Math.round((height * need.deviceSide) / Math.max(a.width, a.height))} px in the ${need.deviceSide} px photo the device receives`
        : `the face is ${height} px high`;
    problems.push(
      `${shown}; ${need.who ?? 'devices'} need ${need.devicePx}: use a closer or larger photo`,
    );
  }
  if (a.sharpness !== null && a.sharpness < MIN_SHARPNESS) {
    problems.push(
      `the face is blurred (sharpness ${Math.round(a.sharpness)}, at least ${MIN_SHARPNESS} needed): use a sharper photo`,
    );
  }
  if (a.frontal !== null && a.frontal < MIN_FRONTAL) {
    problems.push('the face is turned away: use a photo looking straight at the camera');
  }
  return problems;
}

/** Euclidean distance of two descriptors. */
export function descriptorDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - (b[i] ?? 0)) ** 2;
  return Math.sqrt(sum);
}

/** A descriptor as stored (raw little-endian float32) and back. */
export const descriptorBytes = (d: Float32Array) =>
  Buffer.from(d.buffer, d.byteOffset, d.byteLength);
export function descriptorOf(bytes: Buffer | Uint8Array | null): Float32Array | null {
  if (!bytes || bytes.byteLength % 4 !== 0) return null;
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}
