import { RecentIds } from './recent-ids.js';

describe('RecentIds', () => {
  it('knows an id it saw, and forgets the oldest beyond its limit', () => {
    const ids = new RecentIds(2);
    expect([ids.add('a'), ids.add('a'), ids.add('b'), ids.add('c')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    // 'a' was the oldest of three: forgotten, so new again; 'c' is still known.
    expect([ids.add('c'), ids.add('a')]).toEqual([false, true]);
  });
});
