import { jpegFrame } from '@svc/shared';
import { z } from 'zod';

/**
 * What a recognition device accepts of a photo, like the real ones whose undocumented limits
 * make pushes fail (issue 26): at most so many bytes, a longest side, a shortest side, and
 * only baseline JPEGs with 4:2:0 chroma. Unset: no limit.
 */
export const photoLimitsSchema = z.object({
  maxPhotoBytes: z.number().int().min(1).optional(),
  maxPhotoSide: z.number().int().min(1).optional(),
  minPhotoSide: z.number().int().min(1).optional(),
  baseline420: z.boolean().optional(),
});
export type PhotoLimits = z.infer<typeof photoLimitsSchema>;

export interface PhotoRefusal {
  status: number;
  code: string;
  message: string;
}

const refuse = (status: number, code: string, message: string): PhotoRefusal => ({
  status,
  code,
  message,
});

/** Why the device refuses this photo (its decoded bytes), or undefined when it takes it. */
export function photoRefusal(photo: Buffer, limits: PhotoLimits): PhotoRefusal | undefined {
  if (limits.maxPhotoBytes !== undefined && photo.length > limits.maxPhotoBytes) {
    return refuse(
      413,
      'photo_too_large',
      `the photo is ${photo.length} bytes; this device takes at most ${limits.maxPhotoBytes}`,
    );
  }
  const { maxPhotoSide, minPhotoSide, baseline420 } = limits;
  if (maxPhotoSide === undefined && minPhotoSide === undefined && !baseline420) return undefined;
  const frame = jpegFrame(photo);
  if (!frame) return refuse(400, 'photo_unreadable', 'the photo is not a JPEG this device reads');
  const long = Math.max(frame.width, frame.height);
  const short = Math.min(frame.width, frame.height);
  if (maxPhotoSide !== undefined && long > maxPhotoSide) {
    return refuse(
      400,
      'photo_too_many_pixels',
      `the photo is ${frame.width}×${frame.height}; this device takes at most ${maxPhotoSide} on the longest side`,
    );
  }
  if (minPhotoSide !== undefined && short < minPhotoSide) {
    return refuse(
      400,
      'photo_too_small',
      `the photo is ${frame.width}×${frame.height}; this device needs at least ${minPhotoSide} on the shorter side`,
    );
  }
  if (baseline420 && (!frame.baseline || frame.subsampling !== '4:2:0')) {
    return refuse(
      400,
      'photo_format',
      `the photo is a ${frame.baseline ? 'baseline' : 'non-baseline'} JPEG with ${frame.subsampling} chroma; this device reads only baseline 4:2:0`,
    );
  }
  return undefined;
}
