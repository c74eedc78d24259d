import sharp from 'sharp';
import { ErrorCode, MAX_SNAPSHOT_BYTES } from '@svc/shared';
import { HttpError } from '../../platform/http/errors.js';
import {
  INVALID_IMAGE,
  MAX_PHOTO_PIXELS,
  sniff,
  type NormalizedPhoto,
} from '../../photos/normalize.js';

const invalid = (message: string) => new HttpError(400, INVALID_IMAGE, message);

/** Decoded size of a base64 string, computed without decoding it. */
export function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/**
 * A device snapshot, checked and ready for the photo store. It is kept exactly as the device
 * sent it (not re-encoded): it is evidence of what the camera saw, and decoding plus encoding
 * every event would cost more CPU than the rest of intake. The checks make sure it is a real
 * JPEG of sane dimensions (magic bytes, then the decoder's reading of its header).
 */
export async function checkSnapshot(base64: string): Promise<NormalizedPhoto> {
  const claimed = base64Bytes(base64);
  if (claimed > MAX_SNAPSHOT_BYTES) {
    throw new HttpError(
      413,
      ErrorCode.payloadTooLarge,
      `The snapshot is ${claimed} bytes; at most ${MAX_SNAPSHOT_BYTES} bytes (512 KiB) are accepted.`,
    );
  }
  const data = Buffer.from(base64, 'base64');
  if (data.length === 0) throw invalid('The snapshot is empty.');
  if (sniff(data) !== 'jpeg') throw invalid('The snapshot is not a JPEG image.');
  const { width, height } = await readHeader(data);
  if (width <= 0 || height <= 0) throw invalid('The snapshot has no pixels.');
  if (width * height > MAX_PHOTO_PIXELS) {
    throw invalid(`The snapshot claims ${width} × ${height} pixels, more than a camera frame.`);
  }
  return { data, width, height };
}

async function readHeader(data: Buffer): Promise<{ width: number; height: number }> {
  try {
    const meta = await sharp(data, { failOn: 'error', limitInputPixels: false }).metadata();
    if (meta.format === 'jpeg') return { width: meta.width ?? 0, height: meta.height ?? 0 };
  } catch {
    // The decoder could not read it: the same answer as a non-JPEG header.
  }
  throw invalid('The snapshot starts like a JPEG image but cannot be read as one.');
}
