// Distinct large face photos for bench/photo-burst.mjs, made from the demo photos
// @vladmandic/face-api ships: a head-and-shoulders crop around one of their faces, scaled up to
// the size asked, with a block of its own colour in one corner so no two decode to the same
// picture (the face check's cache never answers). Encoding a 35 MP JPEG takes seconds on a
// busy machine, so the photos are kept in a cache folder and made only once.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

const require = createRequire(new URL('../server/package.json', import.meta.url));
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
// Faces of the demo photos (sample, x, y, width, height at 1920 px), found by SSD-MobileNet.
const FACES = [
  [1, 414, 355, 177, 240],
  [1, 1476, 199, 203, 241],
  [3, 585, 329, 199, 271],
  [3, 1075, 215, 220, 299],
  [4, 664, 53, 187, 258],
  [5, 1113, 198, 158, 236],
  [6, 1180, 305, 188, 280],
];

async function base(face, width, height) {
  const [sample, x, y, w, h] = face;
  const img = sharp(path.join(DEMO, `sample${sample}.jpg`));
  const meta = await img.metadata();
  const left = Math.max(0, Math.round(x - w * 0.6));
  const top = Math.max(0, Math.round(y - h * 0.5));
  const right = Math.min(meta.width, Math.round(x + w * 1.6));
  const bottom = Math.min(meta.height, Math.round(y + h * 1.9));
  const { data } = await img
    .extract({ left, top, width: right - left, height: bottom - top })
    .resize({ width, height, fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return data;
}

/**
 * `count` photos of `megapixels` (3:4 portrait), each a distinct JPEG, from `dir` when made
 * before. Returns their bytes.
 */
export async function burstPhotos({ count, megapixels, quality = 85, dir, log = () => {} }) {
  const width = Math.round(Math.sqrt((megapixels * 1e6 * 3) / 4) / 16) * 16;
  const height = Math.round((width * 4) / 3 / 16) * 16;
  const folder = path.join(dir, `${width}x${height}-q${quality}`);
  mkdirSync(folder, { recursive: true });
  const bases = new Map();
  const photos = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(folder, `${i}.jpg`);
    if (existsSync(file)) {
      photos.push(readFileSync(file));
      continue;
    }
    const f = i % FACES.length;
    if (!bases.has(f)) bases.set(f, await base(FACES[f], width, height));
    const pixels = Buffer.from(bases.get(f));
    // A 128 px block whose colour is this photo's number: still there after the 1024 px resize.
    const n = Math.floor(i / FACES.length) + 1;
    for (let yy = 0; yy < 128; yy++) {
      for (let xx = 0; xx < 128; xx++) {
        const o = (yy * width + xx) * 3;
        pixels[o] = (n * 53) & 255;
        pixels[o + 1] = (n * 97) & 255;
        pixels[o + 2] = (n >> 2) & 255;
      }
    }
    const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality })
      .toBuffer();
    writeFileSync(`${file}.tmp`, jpeg);
    renameSync(`${file}.tmp`, file);
    photos.push(jpeg);
    if ((i + 1) % 20 === 0) log(`  ${i + 1} of ${count} photos made`);
  }
  return { photos, width, height };
}
