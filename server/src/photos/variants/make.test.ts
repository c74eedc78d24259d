import { jpegFrame } from '@svc/shared';
import sharp from 'sharp';
import { makeVariant } from './make.js';
import { fitsAsStored, profileKey, sizeProblem, type PhotoProfile } from './profile.js';

/** A generated photo-like JPEG (blurred noise), stored the way normalize.ts stores photos. */
async function storedPhoto(width: number, height: number): Promise<Buffer> {
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .blur(1.5)
    .png()
    .toBuffer();
  return sharp(noise).jpeg({ quality: 85, chromaSubsampling: '4:4:4' }).toBuffer();
}

const none: PhotoProfile = { maxBytes: null, maxSide: null, minSide: null, baseline420: false };

describe('device photo variants', () => {
  let photo: Buffer;
  beforeAll(async () => {
    photo = await storedPhoto(1024, 768);
  });

  test('profile keys: none is empty, equal limits share one', () => {
    expect(profileKey(none)).toBe('');
    expect(profileKey({ ...none, maxBytes: 61_440, maxSide: 480, baseline420: true })).toBe(
      'b61440.x480.n0.j420',
    );
  });

  test('a byte limit first lowers the quality, then the size, keeping baseline 4:2:0', async () => {
    const byQuality = await makeVariant(
      photo,
      { width: 1024, height: 768 },
      {
        ...none,
        maxBytes: 90_000,
      },
    );
    if (!('photo' in byQuality)) throw new Error(byQuality.problem);
    expect(byQuality.photo.data.length).toBeLessThanOrEqual(90_000);
    expect([byQuality.photo.width, byQuality.photo.height]).toEqual([1024, 768]);

    const bySize = await makeVariant(
      photo,
      { width: 1024, height: 768 },
      {
        ...none,
        maxBytes: 12_000,
        minSide: 200,
      },
    );
    if (!('photo' in bySize)) throw new Error(bySize.problem);
    const frame = jpegFrame(bySize.photo.data)!;
    expect(bySize.photo.data.length).toBeLessThanOrEqual(12_000);
    expect(frame.width).toBeLessThan(1024);
    expect(frame.height).toBeGreaterThanOrEqual(200);
    expect([frame.baseline, frame.subsampling]).toEqual([true, '4:2:0']);
  });

  test('a 4:4:4 photo does not fit a baseline 4:2:0 device as stored; the variant does', async () => {
    const profile = { ...none, baseline420: true };
    expect(jpegFrame(photo)?.subsampling).toBe('4:4:4');
    expect(fitsAsStored(photo, { width: 1024, height: 768 }, profile)).toBe(false);
    const made = await makeVariant(photo, { width: 1024, height: 768 }, profile);
    if (!('photo' in made)) throw new Error(made.problem);
    expect(fitsAsStored(made.photo.data, made.photo, profile)).toBe(true);
  });

  test('what can never fit says why: too small, too narrow once fitted, too detailed', async () => {
    expect(sizeProblem({ width: 300, height: 200 }, { ...none, minSide: 240 })).toMatch(
      /300×200 pixels; the device needs at least 240 on the shorter side/,
    );
    expect(
      sizeProblem({ width: 1000, height: 300 }, { ...none, minSide: 200, maxSide: 480 }),
    ).toMatch(/its shorter side would be 144, under the device's minimum of 200/);
    const tiny = await makeVariant(
      photo,
      { width: 1024, height: 768 },
      {
        ...none,
        maxBytes: 2_000,
        minSide: 600,
      },
    );
    expect('problem' in tiny && tiny.problem).toMatch(
      /cannot be made smaller than \d+ bytes for a device that accepts at most 2000/,
    );
  });
});
