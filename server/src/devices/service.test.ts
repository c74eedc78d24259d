import { hashDeviceKey, isOnline, newDeviceKey } from './service.js';

describe('device rules without a database', () => {
  const now = new Date('2026-11-22T06:30:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  test.each([
    ['enabled, heard just now', true, ago(0), null, true],
    ['enabled, exactly the timeout ago', true, ago(30_000), null, true],
    ['enabled, a millisecond too long ago', true, ago(30_001), null, false],
    ['enabled, never heard', true, null, null, false],
    ['disabled, heard just now', false, ago(0), null, false],
    ['enabled, heard, then calling with a refused key', true, ago(5_000), ago(0), false],
  ] as const)('isOnline: %s', (_what, enabled, lastHeartbeatAt, keyRefusedAt, online) => {
    expect(isOnline({ enabled, lastHeartbeatAt, keyRefusedAt }, now, 30)).toBe(online);
  });

  test('keys are 32 random bytes, base64url, different every time; the hash is SHA-256 hex', () => {
    const keys = new Set(Array.from({ length: 50 }, newDeviceKey));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(hashDeviceKey(key)).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(hashDeviceKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
