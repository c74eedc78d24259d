import sharp from 'sharp';
import { limiter, type NormalizedPhoto } from '../normalize.js';
import { sizeFit, type Dimensions, type FitProblem, type PhotoProfile } from './profile.js';

/** Qualities tried at one size, best first; below the last the photo is made smaller instead. */
const QUALITIES = [85, 75, 65, 55, 45] as const;
/** Each smaller size aims this far under the byte limit (JPEG size is not linear in area). */
const SHRINK_MARGIN = 0.9;
const MAX_SIZES = 6;

export type Made = { photo: NormalizedPhoto } | { problem: string; fit: FitProblem };

/**
 * A variant of a stored photo fitted to a profile: longest side at most `maxSide` (never
 * enlarged), a baseline JPEG with 4:2:0 chroma (what every device reads), at the best quality
 * that fits `maxBytes`; when even the lowest does not, smaller, as long as the shorter side
 * stays at `minSide` or above. `problem` says why it cannot be done.
 */
export function makeVariant(
  data: Buffer,
  stored: Dimensions,
  profile: PhotoProfile,
): Promise<Made> {
  const problem = sizeFit(stored, profile);
  if (problem) return Promise.resolve({ problem: problem.text, fit: problem });
  return limiter.run(() => fit(data, stored, profile));
}

async function fit(data: Buffer, stored: Dimensions, profile: PhotoProfile): Promise<Made> {
  const long = Math.max(stored.width, stored.height);
  const short = Math.min(stored.width, stored.height);
  // The smallest longest side that keeps the shorter side at the minimum.
  const smallest = profile.minSide === null ? 16 : Math.ceil((profile.minSide * long) / short);
  let side = Math.min(long, profile.maxSide ?? long);
  let smallestBytes = Infinity;
  for (let size = 0; size < MAX_SIZES; size++) {
    for (const quality of QUALITIES) {
      const { data: out, info } = await sharp(data)
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality, chromaSubsampling: '4:2:0', progressive: false, mozjpeg: false })
        .toBuffer({ resolveWithObject: true });
      smallestBytes = Math.min(smallestBytes, out.length);
      if (profile.maxBytes === null || out.length <= profile.maxBytes) {
        return { photo: { data: out, width: info.width, height: info.height } };
      }
    }
    if (side <= smallest) break;
    const next = Math.floor(side * Math.sqrt(profile.maxBytes! / smallestBytes) * SHRINK_MARGIN);
    side = Math.max(smallest, Math.min(next, side - 1));
  }
  const text = `The photo cannot be made smaller than ${smallestBytes} bytes for a device that accepts at most ${profile.maxBytes}${profile.minSide === null ? '' : ` with a shorter side of at least ${profile.minSide} pixels`}: provide a simpler photo (plain background) or raise the device's limit.`;
  const fitProblem: FitProblem = {
    text,
    code: 'photo_fit_bytes',
    params: { smallestBytes, maxBytes: profile.maxBytes!, minSide: profile.minSide ?? 0 },
  };
  return { problem: text, fit: fitProblem };
}
