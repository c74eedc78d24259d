import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, loadSharedTexts, type SharedTexts } from '@svc/shared';
import { createLogger } from '../logger.js';
import { toHttpError } from './errors.js';

const src = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'test' ? [] : sources(file);
    return file.endsWith('.ts') && !file.endsWith('.test.ts') ? [file] : [];
  });
}

/** Each `httpErrors.conflict(…)` statement of the server's sources, with where it is. */
function conflicts(): { where: string; call: string }[] {
  const out: { where: string; call: string }[] = [];
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    for (let at = text.indexOf('httpErrors.conflict('); at >= 0;) {
      const end = text.indexOf(';\n', at);
      out.push({ where: path.relative(src, file), call: text.slice(at, end) });
      at = text.indexOf('httpErrors.conflict(', end);
    }
  }
  return out;
}

/**
 * Issue 34: every code the server answers with, and every 409's reason, has words in both
 * catalogs, so no client falls back to the server's English sentence in a zh-CN session.
 */
describe('the server error codes and conflict reasons have catalog texts', () => {
  let catalogs: [string, SharedTexts][];
  beforeAll(async () => {
    catalogs = [
      ['en', await loadSharedTexts('en')],
      ['zh-CN', await loadSharedTexts('zh-CN')],
    ];
  });

  test('every error code, in en and zh-CN', () => {
    for (const [language, texts] of catalogs) {
      const missing = Object.values(ErrorCode).filter(
        (code) => !(texts.errors as Record<string, string | undefined>)[code],
      );
      expect([language, missing]).toEqual([language, []]);
    }
  });

  test('a 500 names its request id, in the English text and as a param for other languages', () => {
    const body = toHttpError(new Error('boom'), createLogger('silent'), 'req-42').body();
    expect(body.error.code).toBe(ErrorCode.internal);
    expect(body.error.message).toContain('(request req-42)');
    expect(body.error.params).toEqual({ requestId: 'req-42' });
  });

  test('every 409 conflict names a reason the catalogs word', () => {
    const calls = conflicts();
    expect(calls.length).toBeGreaterThan(10);
    const unnamed = calls.filter((c) => !/reason:/.test(c.call)).map((c) => c.where);
    expect(unnamed).toEqual([]);
    const reasons = new Set(
      calls.flatMap((c) => [...c.call.matchAll(/'([a-z][a-z0-9_]*)'/g)].map((m) => m[1]!)),
    );
    for (const [language, texts] of catalogs) {
      const known = { ...texts.reasons, ...texts.messages } as Record<string, string | undefined>;
      // A quoted word that is not a reason (none today) would show here too: say it by name.
      const unworded = [...reasons].filter((r) => !known[r]);
      expect([language, unworded]).toEqual([language, []]);
    }
  });
});
