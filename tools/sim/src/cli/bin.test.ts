import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const repoRoot = join(packageDir, '..', '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
};
const binFile = join(packageDir, manifest.bin['svc-sim']!);

/** `npx svc-sim` in a fresh clone: npm links the bin at install time, before any build. */
describe('the svc-sim bin', () => {
  it('is a committed, executable file, which the install links as svc-sim', async () => {
    // Committed (not built): the link must have a target when `npm ci` makes it.
    const { stdout } = await run('git', ['ls-files', '-s', '--error-unmatch', binFile], {
      cwd: packageDir,
    });
    expect(stdout).toMatch(/^100755 /);
    expect(readFileSync(binFile, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(realpathSync(join(repoRoot, 'node_modules', '.bin', 'svc-sim'))).toBe(
      realpathSync(binFile),
    );
  });

  it('`npx svc-sim --help` prints the usage and exits 0', async () => {
    const { stdout } = await run('npx', ['--no-install', 'svc-sim', '--help'], { cwd: repoRoot });
    expect(stdout).toContain('Usage: svc-sim [nodes] [options]');
    expect(stdout).toContain('--help');
  });

  it('before the build, says how to build instead of failing with a stack', async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'svc-sim-bin-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync(binFile, join(dir, 'bin', 'svc-sim.js'));
      const failed = await run(process.execPath, [join(dir, 'bin', 'svc-sim.js'), '--help']).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toBe(
        'svc-sim: not built yet; run `npm run build -w @svc/sim` (or `npm start`)\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
