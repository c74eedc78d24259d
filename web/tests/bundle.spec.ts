import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';

/** Issue 21's budget for what the first page load fetches before the login page shows. */
const INITIAL_JS_BUDGET = 200 * 1024;

test('the login page loads at most 200 kB of JavaScript, gzipped', () => {
  const dist = path.resolve(import.meta.dirname, '..', 'dist');
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  // The entry script and the chunks it preloads: everything fetched before the first render.
  const urls = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  expect(urls.length).toBeGreaterThan(0);
  const gzipped = urls.reduce(
    (sum, url) => sum + gzipSync(readFileSync(path.join(dist, url)), { level: 9 }).length,
    0,
  );
  test.info().annotations.push({
    type: 'initial JS',
    description: `${(gzipped / 1024).toFixed(1)} kB gzip in ${urls.length} files`,
  });
  expect(gzipped).toBeLessThanOrEqual(INITIAL_JS_BUDGET);
});
