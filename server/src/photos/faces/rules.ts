import { describeMessage, formatEnglish, type Message } from '@svc/shared';
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
  /** The space whose devices need it ("Gate A"), or null when it is the server's default. */
  who: string | null;
}

/**
 * Every problem of the photo by its message code (shared/src/messages.ts `face_*`) and values,
 * each saying what to do; empty when it passes. A client says them in its reader's language.
 */
export function faceReasons(a: FaceAnalysis, need: FaceRequirement): Message[] {
  if (a.faces.length === 0) return [{ code: 'face_none' }];
  if (a.faces.length > 1) return [{ code: 'face_several', params: { count: a.faces.length } }];
  const face = a.faces[0]!;
  const problems: Message[] = [];
  const height = Math.round(face.box.height);
  if (height < need.minHeight) {
    const devices: Record<string, string> =
      need.who === null
        ? { devices: 'face_devices' }
        : { devices: 'face_devices_in', space: need.who };
    const params = { height, need: need.devicePx, ...devices };
    problems.push(
      need.deviceSide !== null
        ? {
            code: 'face_small_device',
            params: {
              ...params,
              side: need.deviceSide,
              shown: Math.round((height * need.deviceSide) / Math.max(a.width, a.height)),
            },
          }
        : { code: 'face_small', params },
    );
  }
  if (a.sharpness !== null && a.sharpness < MIN_SHARPNESS) {
    problems.push({
      code: 'face_blurred',
      params: { sharpness: Math.round(a.sharpness), min: MIN_SHARPNESS },
    });
  }
  if (a.frontal !== null && a.frontal < MIN_FRONTAL) problems.push({ code: 'face_turned' });
  return problems;
}

/** The problems in the server's English (stored with the check, audited, logged). */
export function faceProblems(a: FaceAnalysis, need: FaceRequirement): string[] {
  return faceReasons(a, need).map((r) => describeMessage(r, formatEnglish));
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
