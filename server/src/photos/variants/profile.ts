import type { PhotoFitCode } from '@svc/shared';
import { jpegFrame } from '@svc/shared';
import type { DeviceRow } from '../../platform/db/business-models.js';

/** What a device accepts of a photo (its profile); null: no limit. */
export interface PhotoProfile {
  maxBytes: number | null;
  /** The longest side, in pixels (the device's `maxPhotoPixels`). */
  maxSide: number | null;
  /** The shortest side, in pixels: a photo is never enlarged to reach it. */
  minSide: number | null;
  /** Only a baseline JPEG with 4:2:0 chroma. */
  baseline420: boolean;
}

export type ProfiledDevice = Pick<
  DeviceRow,
  'maxPhotoBytes' | 'maxPhotoPixels' | 'minPhotoSide' | 'photoBaseline420'
>;

export interface Dimensions {
  width: number;
  height: number;
}

/** A device's profile; the same object for the same device row (a push asks once per task). */
export function profileOf(device: ProfiledDevice): PhotoProfile {
  let profile = profiles.get(device);
  if (!profile) {
    profile = {
      maxBytes: device.maxPhotoBytes,
      maxSide: device.maxPhotoPixels,
      minSide: device.minPhotoSide ?? null,
      baseline420: device.photoBaseline420 ?? false,
    };
    profiles.set(device, profile);
  }
  return profile;
}
const profiles = new WeakMap<ProfiledDevice, PhotoProfile>();

/**
 * The profile as text, the cache's key: devices with the same limits share their variants.
 * '' for a device without any limit: it gets every photo as stored.
 */
export function profileKey(profile: PhotoProfile): string {
  const { maxBytes, maxSide, minSide, baseline420 } = profile;
  if (maxBytes === null && maxSide === null && minSide === null && !baseline420) return '';
  return `b${maxBytes ?? 0}.x${maxSide ?? 0}.n${minSide ?? 0}.j${baseline420 ? 420 : 0}`;
}

/**
 * Why a photo of these dimensions can never fit the profile, whatever its compression: its
 * shorter side is under the minimum, or would be once resized to the maximum longest side.
 * Undefined when its dimensions can fit (its bytes are only known once encoded).
 */
export function sizeProblem(photo: Dimensions, profile: PhotoProfile): string | undefined {
  return sizeFit(photo, profile)?.text;
}

/** {@link sizeProblem} with its code and the device's limits as values (issue 34). */
export function sizeFit(photo: Dimensions, profile: PhotoProfile): FitProblem | undefined {
  const { minSide, maxSide } = profile;
  if (minSide === null) return undefined;
  const { width, height } = photo;
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (short < minSide) {
    return {
      text: `The photo is ${width}×${height} pixels; the device needs at least ${minSide} on the shorter side and photos are never enlarged: provide a larger photo.`,
      code: 'photo_fit_small',
      params: { width, height, minSide },
    };
  }
  if (maxSide !== null && long > maxSide) {
    const resized = Math.floor((short * maxSide) / long);
    if (resized < minSide) {
      return {
        text: `The photo is ${width}×${height} pixels; fitted to the device's longest side of ${maxSide} its shorter side would be ${resized}, under the device's minimum of ${minSide}: crop it closer to a square.`,
        code: 'photo_fit_shape',
        params: { width, height, maxSide, resized, minSide },
      };
    }
  }
  return undefined;
}

/**
 * Why a device cannot take a photo: the English (logs, a failed push) and the same as a code
 * with the device's limits as values (shared `PhotoFitCode`), stored beside it.
 */
export interface FitProblem {
  text: string;
  code: PhotoFitCode;
  params: Record<string, number>;
}

/** Whether the stored photo can be sent as it is. */
export function fitsAsStored(data: Buffer, photo: Dimensions, profile: PhotoProfile): boolean {
  if (sizeProblem(photo, profile)) return false;
  if (profile.maxBytes !== null && data.length > profile.maxBytes) return false;
  if (profile.maxSide !== null && Math.max(photo.width, photo.height) > profile.maxSide) {
    return false;
  }
  if (!profile.baseline420) return true;
  const frame = jpegFrame(data);
  return frame?.baseline === true && frame.subsampling === '4:2:0';
}
