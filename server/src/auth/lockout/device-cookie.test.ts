import { randomBytes } from 'node:crypto';
import { DEVICE_COOKIE_MAX_AGE_S, DeviceCookies } from './device-cookie.js';

describe('device cookies', () => {
  const cookies = new DeviceCookies(randomBytes(32));
  const now = new Date('2026-11-25T12:00:00Z');

  test('a cookie is honoured for its account only, and only unaltered', () => {
    const { id, value } = cookies.issue('ada', now);
    expect(cookies.verify('ada', value, now)).toBe(id);
    expect(cookies.verify('bob', value, now)).toBeUndefined();
    expect(
      cookies.verify(
        'ada',
        value.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        now,
      ),
    ).toBeUndefined();
    const [cid, issued, mac] = value.split('.');
    expect(cookies.verify('ada', `${cid}.${Number(issued) + 1}.${mac}`, now)).toBeUndefined();
    expect(cookies.verify('ada', undefined, now)).toBeUndefined();
    expect(new DeviceCookies(randomBytes(32)).verify('ada', value, now)).toBeUndefined();
  });

  test('a cookie older than its lifetime is not honoured', () => {
    const { value } = cookies.issue('ada', now);
    const later = (s: number) => new Date(now.getTime() + s * 1000);
    expect(cookies.verify('ada', value, later(DEVICE_COOKIE_MAX_AGE_S - 60))).toBeDefined();
    expect(cookies.verify('ada', value, later(DEVICE_COOKIE_MAX_AGE_S + 60))).toBeUndefined();
  });

  test("each account's cookie has its own name, which does not reveal the username", () => {
    expect(cookies.nameFor('ada')).not.toBe(cookies.nameFor('bob'));
    expect(cookies.nameFor('ada')).toMatch(/^svc_device_[A-Za-z0-9_-]{16}$/);
    expect(cookies.nameFor('ada')).not.toContain('ada');
  });
});
