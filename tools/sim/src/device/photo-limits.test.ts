import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { errorBody, jpegFrame } from '@svc/shared';
import jpeg from 'jpeg-js';
import { bearer, request } from '../test/http-client.js';
import { startDevice, type DeviceHandle } from './device.js';
import { photoRefusal } from './photo-limits.js';

/** A JPEG's first segments only: an APP0, then a frame header (SOF0 baseline, SOF2 progressive). */
function jpegHeader(sof: number, width: number, height: number, factors: number[], pad = 0) {
  const app0 = [0xff, 0xe0, 0x00, 0x06, 0x4a, 0x46, 0x49, 0x46];
  const comps = factors.flatMap((hv, i) => [i + 1, hv, i === 0 ? 0 : 1]);
  const length = 8 + comps.length;
  const frame = [0xff, sof, length >> 8, length & 0xff, 8, height >> 8, height & 0xff];
  frame.push(width >> 8, width & 0xff, factors.length, ...comps);
  return Buffer.concat([Buffer.from([0xff, 0xd8, ...app0, ...frame]), Buffer.alloc(pad)]);
}

describe('JPEG frame header', () => {
  it('tells baseline from progressive and reads the chroma subsampling', () => {
    expect(jpegFrame(jpegHeader(0xc0, 640, 480, [0x22, 0x11, 0x11]))).toEqual({
      width: 640,
      height: 480,
      baseline: true,
      subsampling: '4:2:0',
    });
    expect(jpegFrame(jpegHeader(0xc2, 10, 20, [0x22, 0x11, 0x11]))?.baseline).toBe(false);
    expect(jpegFrame(jpegHeader(0xc0, 10, 20, [0x11, 0x11, 0x11]))?.subsampling).toBe('4:4:4');
    expect(jpegFrame(jpegHeader(0xc0, 10, 20, [0x21, 0x11, 0x11]))?.subsampling).toBe('4:2:2');
    expect(jpegFrame(jpegHeader(0xc0, 10, 20, [0x11]))?.subsampling).toBe('gray');
    expect(jpegFrame(Buffer.from('not a jpeg at all'))).toBeUndefined();
    expect(jpegFrame(jpegHeader(0xc0, 10, 20, [0x22, 0x11, 0x11]).subarray(0, 14))).toBeUndefined();
    // A real encoder's output: jpeg-js writes baseline 4:4:4.
    const pixels = Buffer.alloc(32 * 24 * 4, 128);
    const real = jpeg.encode({ data: pixels, width: 32, height: 24 }, 80).data;
    expect(jpegFrame(real)).toEqual({
      width: 32,
      height: 24,
      baseline: true,
      subsampling: '4:4:4',
    });
  });
});

describe('device photo limits', () => {
  const limits = { maxPhotoBytes: 2000, maxPhotoSide: 480, minPhotoSide: 200, baseline420: true };
  const ok = jpegHeader(0xc0, 480, 360, [0x22, 0x11, 0x11], 500);

  it('takes a photo within every limit and says why it refuses each other one', () => {
    expect(photoRefusal(ok, limits)).toBeUndefined();
    const cases: [Buffer, string][] = [
      [jpegHeader(0xc0, 480, 360, [0x22, 0x11, 0x11], 3000), 'photo_too_large'],
      [jpegHeader(0xc0, 640, 480, [0x22, 0x11, 0x11]), 'photo_too_many_pixels'],
      [jpegHeader(0xc0, 480, 150, [0x22, 0x11, 0x11]), 'photo_too_small'],
      [jpegHeader(0xc2, 480, 360, [0x22, 0x11, 0x11]), 'photo_format'],
      [jpegHeader(0xc0, 480, 360, [0x11, 0x11, 0x11]), 'photo_format'],
      [Buffer.from('plain text'), 'photo_unreadable'],
    ];
    for (const [photo, code] of cases) expect(photoRefusal(photo, limits)?.code).toBe(code);
    // Without limits anything goes, even bytes that are no JPEG.
    expect(photoRefusal(Buffer.from('plain text'), {})).toBeUndefined();
  });

  let device: DeviceHandle | undefined;
  afterEach(() => device?.stop());

  it('refuses an unfit PUT with its reason and stores nothing', async () => {
    device = await startDevice({
      sn: 'DEV-L',
      key: 'k',
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
      photoLimits: limits,
    });
    const put = (photo: Buffer) =>
      request(`${device!.url}/api/persons/p-1`, {
        method: 'PUT',
        headers: bearer('k'),
        body: {
          id: 'p-1',
          name: 'P',
          photo: photo.toString('base64'),
          photoSha256: createHash('sha256').update(photo).digest('hex'),
          version: 1,
        },
      });
    const big = await put(jpegHeader(0xc0, 960, 720, [0x22, 0x11, 0x11]));
    expect(big.status).toBe(400);
    expect(errorBody.parse(big.json).error).toMatchObject({
      code: 'photo_too_many_pixels',
      message: expect.stringMatching(/960×720; .* at most 480/) as unknown,
    });
    expect(device.persons()).toEqual({});
    expect((await put(ok)).status).toBe(200);
    expect(device.person('p-1')?.photoSha256).toBe(createHash('sha256').update(ok).digest('hex'));
  });
});
