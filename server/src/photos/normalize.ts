import { availableParallelism } from 'node:os';
import sharp, { type Metadata } from 'sharp';
import { ErrorCode } from '@svc/shared';
import { HttpError } from '../platform/http/errors.js';

/** An upload larger than this is refused before any decoding (PROTOCOL: "at most 5 MB"). */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
/** Decompression-bomb guard: a small file may claim enormous dimensions. */
export const MAX_PHOTO_PIXELS = 40_000_000;
/** Longest side of a stored photo; smaller images are kept as they are (no upscaling). */
export const MAX_PHOTO_SIDE = 1024;
const JPEG_QUALITY = 85;

/** Not in the shared ErrorCode list (yet): an upload that claims to be an image but is not one. */
export const INVALID_IMAGE = 'invalid_image';

export interface NormalizedPhoto {
  /** The JPEG to store: oriented, at most MAX_PHOTO_SIDE, without any metadata. */
  data: Buffer;
  width: number;
  height: number;
}

type Sniffed = 'jpeg' | 'png' | { other: string } | undefined;

const startsWith = (buf: Buffer, bytes: number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
const ascii = (buf: Buffer, text: string, at = 0) =>
  buf.length >= at + text.length && buf.toString('latin1', at, at + text.length) === text;

/** What the first bytes say the content is; the name and Content-Type are never trusted. */
export function sniff(buf: Buffer): Sniffed {
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(buf, 'GIF87a') || ascii(buf, 'GIF89a')) return { other: 'GIF' };
  if (ascii(buf, 'RIFF') && ascii(buf, 'WEBP', 8)) return { other: 'WebP' };
  if (ascii(buf, 'BM')) return { other: 'BMP' };
  if (startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { other: 'TIFF' };
  }
  if (ascii(buf, 'ftyp', 4)) return { other: 'HEIF/AVIF' };
  if (startsWith(buf, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50])) return { other: 'JPEG 2000' };
  if (startsWith(buf, [0xff, 0x0a])) return { other: 'JPEG XL' };
  if (ascii(buf, '%PDF')) return { other: 'PDF' };
  const head = buf.toString('latin1', 0, 256).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) {
    return { other: 'SVG' };
  }
  return undefined;
}

/** `detail` (the decoder's words) goes to the log only: the client gets plain words (issue 32). */
const invalid = (message: string, detail?: string) => {
  const err = new HttpError(400, INVALID_IMAGE, message);
  if (detail) err.detail = detail;
  return err;
};
const tooManyPixels = (width: number, height: number) =>
  new HttpError(
    413,
    ErrorCode.payloadTooLarge,
    `The image is ${width} × ${height} pixels; at most ${MAX_PHOTO_PIXELS / 1_000_000} megapixels are accepted.`,
  );

/**
 * Decoding runs on libuv's thread pool; a burst of uploads (or a bulk import) must not decode
 * dozens of 40-megapixel images at once and exhaust memory. Device variants (variants/) share it.
 */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
export const limiter = new Limiter(Math.max(1, Math.min(4, availableParallelism())));

/**
 * Accepts only a real JPEG or PNG (by content, confirmed by the decoder), at most
 * MAX_PHOTO_BYTES and MAX_PHOTO_PIXELS, and turns it into the stored form: rotated by its EXIF
 * orientation, longest side ≤ MAX_PHOTO_SIDE, JPEG, every piece of metadata (EXIF with GPS,
 * XMP, IPTC, ICC) gone. Throws an HttpError (400/413/415) for anything refused.
 */
export async function normalizePhoto(input: Buffer): Promise<NormalizedPhoto> {
  if (input.length === 0) throw invalid('The photo is empty.');
  if (input.length > MAX_PHOTO_BYTES) {
    throw new HttpError(
      413,
      ErrorCode.payloadTooLarge,
      `The photo is ${input.length} bytes; at most ${MAX_PHOTO_BYTES} bytes (5 MB) are accepted.`,
    );
  }
  const kind = sniff(input);
  if (kind === undefined) {
    throw invalid('The file is not an image: only JPEG and PNG photos are accepted.');
  }
  if (typeof kind === 'object') {
    throw new HttpError(
      415,
      ErrorCode.unsupportedMediaType,
      `${kind.other} images are not accepted: send a JPEG or PNG photo.`,
    );
  }
  return limiter.run(() => decode(input, kind));
}

async function decode(input: Buffer, kind: 'jpeg' | 'png'): Promise<NormalizedPhoto> {
  // 'error' refuses truncated and corrupt data but tolerates decoder warnings that many
  // ordinary camera and phone files trigger.
  const options = { failOn: 'error', limitInputPixels: MAX_PHOTO_PIXELS } as const;
  let meta: Metadata;
  try {
    meta = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch (err) {
    throw invalid(
      `The ${kind.toUpperCase()} image cannot be read: the file is damaged or not a whole image.`,
      reason(err),
    );
  }
  if (meta.format !== kind) {
    throw invalid(`The file starts like a ${kind.toUpperCase()} image but is not one.`);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width <= 0 || height <= 0) throw invalid('The image has no pixels.');
  if (width * height > MAX_PHOTO_PIXELS) throw tooManyPixels(width, height);
  try {
    // sharp writes no metadata unless asked (no withMetadata/keepExif here): EXIF, GPS, XMP,
    // IPTC and the ICC profile are all dropped, pixels converted to sRGB.
    const { data, info } = await sharp(input, options)
      .autoOrient()
      .resize({
        width: MAX_PHOTO_SIDE,
        height: MAX_PHOTO_SIDE,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: JPEG_QUALITY, chromaSubsampling: '4:2:0' })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (err) {
    if (/pixel limit/i.test(reason(err))) throw tooManyPixels(width, height);
    throw invalid(
      `The ${kind.toUpperCase()} image is damaged or incomplete and cannot be decoded.`,
      reason(err),
    );
  }
}

/** The decoder's own words for the log, one line (never a path: the input is a buffer). */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (
    message
      .split('\n')[0]!
      .replace(/[.\s]+$/, '')
      .slice(0, 200) || 'unknown decoder error'
  );
}
