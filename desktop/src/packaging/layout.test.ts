import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const desktopDir = path.resolve(import.meta.dirname, '..', '..');
const srcDir = path.join(desktopDir, 'src');
/** The one folder of test support (fake clock, loopback sockets, a central service to test with). */
const TEST_SUPPORT = 'testing';

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(srcDir, path.join(entry.parentPath, entry.name)));
}

describe('the source layout', () => {
  it('keeps test support in src/testing only: no production folder holds a test helper', () => {
    const helpers = filesBelow(srcDir).filter((file) => {
      if (file.split(path.sep)[0] === TEST_SUPPORT) return false;
      const name = path.basename(file);
      return (
        /^test[-_.]/.test(name) ||
        name === 'testing.ts' ||
        /fixture/i.test(name) ||
        file
          .split(path.sep)
          .slice(0, -1)
          .some((dir) => /^(testing|test|fixtures?)$/.test(dir))
      );
    });
    expect(helpers).toEqual([]);
  });

  it('has the build leave out the test folder and *.test.ts, and nothing else of core or main', () => {
    const build = JSON.parse(
      readFileSync(path.join(desktopDir, 'tsconfig.build.json'), 'utf8'),
    ) as {
      exclude: string[];
    };
    // The renderer is Vite's to build, not tsc's.
    expect(build.exclude.sort()).toEqual(
      ['src/**/*.test.ts', `src/${TEST_SUPPORT}/**`, 'src/renderer/**'].sort(),
    );
  });
});
