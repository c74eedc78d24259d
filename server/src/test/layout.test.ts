import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(path.join(dir, d.name)) : [path.join(dir, d.name)],
  );
}

/**
 * Test support lives in src/test/ only (CONTRIBUTING.md): the build leaves out that folder and
 * `*.test.ts`, so a helper named like one beside production code is either shipped or, once
 * an exclusion glob catches it, a production file that is silently not what its name says.
 */
test('no test support under a production folder', () => {
  const misplaced = files(SRC)
    .map((f) => path.relative(SRC, f))
    .filter((f) => !f.startsWith(`test${path.sep}`))
    .filter((f) => /^(test-.*|testing\.ts|.*fixture.*)$/.test(path.basename(f)));
  expect(misplaced).toEqual([]);
});
