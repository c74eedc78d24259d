import type { DevicePersonPut } from '@svc/shared';
import { BodyCache } from './bodies.js';

const body = (id: string, photoChars: number): DevicePersonPut => ({
  id,
  name: `Person ${id}`,
  idNumber: id,
  photo: 'A'.repeat(photoChars),
  photoSha256: 'a'.repeat(64),
  version: 1,
});

describe('the bodies kept for pushes', () => {
  test('one body per person row while kept, made once', () => {
    const cache = new BodyCache<object>(1_000);
    const row = {};
    let made = 0;
    const make = () => (made++, body('p-1', 100));
    const first = cache.get(row, make);
    expect(cache.get(row, make)).toBe(first);
    expect(made).toBe(1);
    // Another row object (the person read again at a newer version) gets its own body.
    expect(cache.get({}, make)).not.toBe(first);
    expect(made).toBe(2);
  });

  test('bounded by the photo characters held: the oldest go first, the newest stays', () => {
    const cache = new BodyCache<object>(1_000);
    const rows = Array.from({ length: 5 }, () => ({}));
    const bodies = rows.map((row, i) => cache.get(row, () => body(`p-${i}`, 300)));
    // 5 × 300 characters against 1,000: the two oldest were dropped.
    expect(cache.size).toBe(3);
    expect(cache.get(rows[4]!, () => body('again', 300))).toBe(bodies[4]);
    expect(cache.get(rows[2]!, () => body('again', 300))).toBe(bodies[2]);
    const remade = cache.get(rows[0]!, () => body('p-0', 300));
    expect(remade).not.toBe(bodies[0]);
    expect(remade).toEqual(bodies[0]);
    // A body larger than the whole bound is still kept while it is the newest.
    const big = {};
    const huge = cache.get(big, () => body('huge', 5_000));
    expect(cache.get(big, () => body('other', 1))).toBe(huge);
    expect(cache.size).toBe(1);
  });
});
