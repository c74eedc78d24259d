import { CENTRAL_REPLY_MIN_INTERVAL_MS } from '@svc/shared';
import { ANNOUNCE_REPLIES_PER_S, PerKeyInterval, TokenBucket } from './reply-limits.js';

describe('discovery reply limits', () => {
  test('the bucket gives its burst, then its rate, never more', () => {
    let now = 0;
    const bucket = new TokenBucket(ANNOUNCE_REPLIES_PER_S, ANNOUNCE_REPLIES_PER_S, () => now);
    let given = 0;
    for (let i = 0; i < 10 * ANNOUNCE_REPLIES_PER_S; i++) if (bucket.take()) given++;
    expect(given).toBe(ANNOUNCE_REPLIES_PER_S);
    // Ten seconds of a flood ten times the rate: the rate's worth per second, no burst on top.
    for (let s = 0; s < 10; s++) {
      for (let ms = 0; ms < 1000; ms += 10) {
        now += 10;
        for (let i = 0; i < ANNOUNCE_REPLIES_PER_S / 10; i++) if (bucket.take()) given++;
      }
    }
    expect(given).toBeLessThanOrEqual(11 * ANNOUNCE_REPLIES_PER_S);
    expect(given).toBeGreaterThanOrEqual(11 * ANNOUNCE_REPLIES_PER_S - 1);
  });

  test('one answer per key per interval', () => {
    const limit = new PerKeyInterval();
    expect(limit.due('probe 10.0.0.1', 0)).toBe(true);
    limit.answered('probe 10.0.0.1', 0);
    expect(limit.due('probe 10.0.0.1', CENTRAL_REPLY_MIN_INTERVAL_MS - 1)).toBe(false);
    expect(limit.due('probe 10.0.0.2', 1)).toBe(true);
    expect(limit.due('probe 10.0.0.1', CENTRAL_REPLY_MIN_INTERVAL_MS)).toBe(true);
  });
});
