import { randomBytes } from 'node:crypto';
import { BASE64_PATTERN, isBase64 } from './base64.js';
import { devicePersonPut } from './device.js';

const pattern = new RegExp(BASE64_PATTERN);

describe('isBase64', () => {
  // Long enough to take the decode/re-encode path, and short ones that take the regex.
  const canonical = [0, 1, 2, 3, 300, 301, 302].map((n) => randomBytes(n).toString('base64'));
  const long = randomBytes(600).toString('base64');
  const cases = [
    ...canonical,
    long.replace(/=+$/, ''), // unpadded: accepted by the pattern, not canonical
    `${long.slice(0, -4)}AAB=`, // padding bits set: not canonical, still the alphabet
    `${long}=`, // one `=` too many after padding
    `${long.replace(/=+$/, '')}===`,
    `${long.slice(0, 100)}\n${long.slice(100)}`, // a line break
    `${long.slice(0, 100)}-_${long.slice(102)}`, // the URL-safe alphabet
    `${long.slice(0, 100)}=${long.slice(101)}`, // `=` in the middle
    `${long.slice(0, 100)}é${long.slice(101)}`,
    'abc d',
  ];

  test.each(cases.map((c, i) => [i, c]))('case %i agrees with the pattern', (_, text) => {
    expect(isBase64(text)).toBe(pattern.test(text));
  });

  test('the cases cover both answers on the long path', () => {
    const long = cases.filter((c) => c.length >= 256);
    expect(long.filter((c) => isBase64(c)).length).toBeGreaterThan(2);
    expect(long.filter((c) => !isBase64(c)).length).toBeGreaterThan(2);
  });

  test('a device push with a broken photo is refused with the same message', () => {
    const put = {
      id: 'p-1',
      name: 'Generated Person',
      photo: `${long.slice(0, 100)}-_${long.slice(102)}`,
      photoSha256: 'a'.repeat(64),
      version: 1,
    };
    const parsed = devicePersonPut.safeParse(put);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['photo'], message: 'must be base64' });
    expect(devicePersonPut.safeParse({ ...put, photo: long }).success).toBe(true);
  });
});
