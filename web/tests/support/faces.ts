import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

const demo = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')),
  'demo',
);

/**
 * A region of one of the demo photos face-api ships (real faces, no one's data of ours), as
 * PNG (or JPEG): the face check is on wherever the server runs as `npm start` runs it.
 */
export const demoRegion = (
  sample: number,
  left: number,
  top: number,
  width: number,
  height: number,
  format: 'png' | 'jpeg' = 'png',
) =>
  sharp(path.join(demo, `sample${sample}.jpg`))
    .extract({ left, top, width, height })
    .toFormat(format)
    .toBuffer();

/** A whole demo photo as JPEG (sample 1 holds three people). */
export const demoPhoto = (sample: number) =>
  sharp(path.join(demo, `sample${sample}.jpg`))
    .jpeg({ quality: 90 })
    .toBuffer();
