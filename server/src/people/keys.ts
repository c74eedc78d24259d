/**
 * The normalized forms people are stored and searched by. Writing and searching go through
 * these same functions, so a prefix typed by an administrator compares like-for-like with what
 * is stored.
 */

/** people.name_key and people.id_number are VARCHAR(128)/(64): MySQL counts code points. */
const NAME_KEY_MAX = 128;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const COMBINING_MARK = /\p{M}+/gu;
// Control characters never belong in a name; keeping them out keeps the key comparable.
const CONTROL = /\p{Cc}+/gu;
const WHITESPACE = /\s+/gu;

function codePoints(value: string, max: number): string {
  const points = Array.from(value);
  return points.length > max ? points.slice(0, max).join('') : value;
}

/**
 * The search key of a name: lower-cased, diacritics removed (NFKD, combining marks stripped),
 * control characters dropped, whitespace collapsed. "  Zoë  ÅSTRÖM " → "zoe astrom".
 * Lower-casing comes first because it can itself produce combining marks ("İ" → "i̇").
 */
export function nameKey(name: string): string {
  const key = name
    .replace(LONE_SURROGATE, '\uFFFD')
    .toLowerCase()
    .normalize('NFKD')
    .replace(COMBINING_MARK, '')
    .replace(CONTROL, ' ')
    .replace(WHITESPACE, ' ')
    .trim()
    .normalize('NFC');
  return codePoints(key, NAME_KEY_MAX);
}

/**
 * The stored form of an ID-document number: NFKC, whitespace collapsed, upper-cased. ID numbers
 * compare case-insensitively on either database this way (MySQL's collation would otherwise
 * treat "ab1" and "AB1" as one number while SQLite kept them apart).
 */
export function canonicalIdNumber(idNumber: string): string {
  return idNumber
    .replace(LONE_SURROGATE, '\uFFFD')
    .normalize('NFKC')
    .replace(WHITESPACE, ' ')
    .trim()
    .toUpperCase();
}

/**
 * The smallest string greater than every string that starts with `prefix`, in code-point order
 * (SQLite's BINARY collation compares UTF-8 bytes, which orders like code points): the last
 * code point raised by one. Undefined when no such bound exists (only U+10FFFF characters).
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix).map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return String.fromCodePoint(...points, next);
    }
  }
  return undefined;
}

/** The escape character of every LIKE pattern built here (backslash means more to MySQL). */
export const LIKE_ESCAPE = '!';

/** A LIKE pattern matching strings that start with `prefix`, with % _ ! escaped. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c)}%`;
}
