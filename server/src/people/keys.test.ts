import { canonicalIdNumber, likePrefix, nameKey, prefixUpperBound } from './keys.js';

describe('people keys', () => {
  test('nameKey lower-cases, strips diacritics and control characters, collapses whitespace', () => {
    expect(nameKey('  Zoë   ÅSTRÖM ')).toBe('zoe astrom');
    expect(nameKey('Ñúñez-Çelik')).toBe('nunez-celik');
    expect(nameKey('İstanbul')).toBe('istanbul');
    expect(nameKey('ＡＢＣ')).toBe('abc');
    expect(nameKey('a\u0000b\tc\nd')).toBe('a b c d');
    expect(nameKey('한국')).toBe('한국');
    expect(nameKey('שָׁלוֹם')).toBe('שלום');
    expect(nameKey('😀 Smile')).toBe('😀 smile');
    // Never longer than the column (128 code points), never a split surrogate pair.
    const long = nameKey('😀'.repeat(200));
    expect(Array.from(long)).toHaveLength(128);
    expect(long).toBe('😀'.repeat(128));
    expect(nameKey('\uD800x')).toBe('\uFFFDx');
  });

  test('canonicalIdNumber upper-cases and collapses whitespace', () => {
    expect(canonicalIdNumber(' ab  12-x ')).toBe('AB 12-X');
    expect(canonicalIdNumber('ｘ１２')).toBe('X12');
  });

  test('prefixUpperBound is the next string after every string with the prefix', () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    expect(prefixUpperBound('a\u{10FFFF}')).toBe('b');
    expect(prefixUpperBound('\u{10FFFF}')).toBeUndefined();
    expect(prefixUpperBound('a\uD7FF')).toBe('a\uE000');
    expect(prefixUpperBound('😀')).toBe('😁');
    const bound = prefixUpperBound('ab')!;
    for (const inside of ['ab', 'ab\u0000', 'abzzz', 'ab\u{10FFFF}'])
      expect(inside < bound).toBe(true);
    for (const outside of ['ac', 'b', 'ac\u0000']) expect(outside >= bound).toBe(true);
  });

  test('likePrefix escapes %, _ and the escape character', () => {
    expect(likePrefix('50%_off!')).toBe('50!%!_off!!%');
    expect(likePrefix("o'b\\")).toBe("o'b\\%");
  });
});
