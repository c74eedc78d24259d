import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from '@swc/core';

let built: Promise<URL> | undefined;

/**
 * The face worker from its TypeScript source, for tests that run without a build: a worker
 * thread cannot load .ts, so swc (jest's own transform) turns it into a temporary .mjs. The
 * worker imports nothing of the project, so the copy runs alone.
 */
export function sourceFaceWorker(): Promise<URL> {
  built ??= (async () => {
    const source = await readFile(new URL('../photos/faces/worker.ts', import.meta.url), 'utf8');
    const { code } = await transform(source, {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
    });
    const dir = path.join(tmpdir(), 'svc-face-worker');
    await mkdir(dir, { recursive: true });
    // Named by content: every jest worker shares one file per version of the source.
    const name = `worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
    const file = path.join(dir, name);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, code);
    await rename(temp, file);
    return pathToFileURL(file);
  })();
  return built;
}
