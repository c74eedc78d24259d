import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

/**
 * Real faces for the face-check tests: the group photos @vladmandic/face-api ships in its
 * `demo/` folder (1920 px wide), and single-face crops of them made here. Boxes were found
 * with its SSD-MobileNet detector at full size; the pairs marked below are the only
 * cross-photo pairs under 0.5 descriptor distance, i.e. the same person in two photos.
 */
const demo = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')),
  'demo',
);

export type Box = readonly [x: number, y: number, width: number, height: number];

export const FACES = {
  /** sample1, right: the same woman as sample4Right. */
  sample1Right: { sample: 1, box: [1476, 199, 203, 241] },
  /** sample4, rightmost. */
  sample4Right: { sample: 4, box: [1277, 144, 145, 244] },
  /** sample1, left: nobody else in the demo photos. */
  sample1Left: { sample: 1, box: [414, 355, 177, 240] },
  /** sample3, left. */
  sample3Left: { sample: 3, box: [585, 329, 199, 271] },
} as const satisfies Record<string, { sample: number; box: Box }>;

export const demoPhoto = (sample: number) => path.join(demo, `sample${sample}.jpg`);

/** A portrait crop around one face (head and shoulders), as a JPEG. */
export async function faceCrop(
  face: { sample: number; box: Box },
  opts: { blur?: number; height?: number } = {},
): Promise<Buffer> {
  const [x, y, w, h] = face.box;
  const img = sharp(demoPhoto(face.sample));
  const { width = 0, height = 0 } = await img.metadata();
  const left = Math.max(0, Math.round(x - w * 0.5));
  const top = Math.max(0, Math.round(y - h * 0.4));
  const right = Math.min(width, Math.round(x + w * 1.5));
  const bottom = Math.min(height, Math.round(y + h * 1.5));
  let out = img.extract({ left, top, width: right - left, height: bottom - top });
  if (opts.height) out = out.resize({ height: opts.height });
  if (opts.blur) out = out.blur(opts.blur);
  return out.jpeg({ quality: 92 }).toBuffer();
}

/** A whole demo group photo. */
export function groupPhoto(sample = 1): Promise<Buffer> {
  return sharp(demoPhoto(sample)).jpeg({ quality: 90 }).toBuffer();
}

/** No face at all: a flat grey picture. */
export function blankPhoto(): Promise<Buffer> {
  return sharp({ create: { width: 800, height: 600, channels: 3, background: '#888' } })
    .jpeg()
    .toBuffer();
}
