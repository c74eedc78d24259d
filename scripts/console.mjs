#!/usr/bin/env node
// `npm run console [-- --port N]`: the console's browser shell. It rebuilds @svc/shared and
// @svc/desktop only when a source is newer than the last build (a rebuild takes many seconds on a
// field laptop; starting an unchanged console should not), then runs the shell with the
// arguments given.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'desktop', 'dist', '.console-build');
const cli = path.join(root, 'desktop', 'dist', 'shell', 'cli.js');
const sources = [
  'shared/src',
  'shared/package.json',
  'shared/tsconfig.json',
  'shared/tsconfig.build.json',
  'desktop/src',
  'desktop/package.json',
  'desktop/tsconfig.json',
  'desktop/tsconfig.build.json',
  'tsconfig.base.json',
  'package-lock.json',
].map((p) => path.join(root, p));

/** The newest modification time under `p` (a file or a directory), or 0 when it is absent. */
function newest(p) {
  if (!existsSync(p)) return 0;
  const info = statSync(p);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const entry of readdirSync(p)) latest = Math.max(latest, newest(path.join(p, entry)));
  return latest;
}

const built = existsSync(stamp) && existsSync(cli) ? statSync(stamp).mtimeMs : 0;
if (Math.max(...sources.map(newest)) > built) {
  console.log('[svc console] sources changed since the last build: building…');
  const result = spawnSync('npm', ['run', 'build', '-w', '@svc/shared', '-w', '@svc/desktop'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

const child = spawn(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
