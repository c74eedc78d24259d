import { describe, expect, it } from '@jest/globals';
import { MAX_SNAPSHOT_BYTES } from '@svc/shared';
import jpeg from 'jpeg-js';
import { SNAPSHOT_SIZE, encodeBlockJpeg, placeholderSnapshot } from './snapshot.js';

/** Marker codes of the JPEG segments, in order, up to the start of scan. */
function markers(bytes: Buffer): number[] {
  const found: number[] = [];
  let offset = 2;
  while (offset < bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1] ?? 0;
    found.push(marker);
    if (marker === 0xda) break;
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return found;
}

describe('generated snapshot JPEG', () => {
  it('is a small baseline JPEG that a decoder reads', () => {
    const snapshot = placeholderSnapshot();
    expect(snapshot.byteLength).toBeLessThanOrEqual(MAX_SNAPSHOT_BYTES);
    expect([...snapshot.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...snapshot.subarray(-2)]).toEqual([0xff, 0xd9]);
    expect(markers(snapshot)).toEqual([0xe0, 0xdb, 0xc0, 0xc4, 0xc4, 0xda]);
    const image = jpeg.decode(snapshot, { useTArray: true });
    expect([image.width, image.height]).toEqual([SNAPSHOT_SIZE, SNAPSHOT_SIZE]);
    const gray = (x: number, y: number) => image.data[(y * SNAPSHOT_SIZE + x) * 4] ?? -1;
    // A dark head in the middle on a light background.
    expect(gray(48, 36)).toBeLessThan(100);
    expect(gray(2, 2)).toBeGreaterThan(180);
  });

  it('encodes every block level exactly, byte stuffing included', () => {
    // Levels that swing from black to white make large DC differences and 0xFF bytes in the scan.
    const levels = [0, 255, 0, 255, 17, 200, 128, 1, 254, 90, 255, 0, 64, 192, 33, 222];
    const bytes = encodeBlockJpeg(32, 32, (column, row) => levels[row * 4 + column] ?? 0);
    const image = jpeg.decode(bytes, { useTArray: true });
    for (let row = 0; row < 4; row++) {
      for (let column = 0; column < 4; column++) {
        const value = image.data[((row * 8 + 4) * 32 + column * 8 + 4) * 4] ?? -1;
        expect(Math.abs(value - (levels[row * 4 + column] ?? 0))).toBeLessThanOrEqual(1);
      }
    }
  });

  it('refuses sizes that are not multiples of 8', () => {
    expect(() => encodeBlockJpeg(10, 8, () => 0)).toThrow(RangeError);
    expect(() => encodeBlockJpeg(0, 8, () => 0)).toThrow(RangeError);
  });
});
