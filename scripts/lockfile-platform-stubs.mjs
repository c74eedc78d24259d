#!/usr/bin/env node
// Keeps package-lock.json usable by `npm ci` everywhere.
//
// The registry mirror our machines use serves only some platforms' prebuilt binaries (for
// example @swc/core-linux-x64-gnu but not @swc/core-darwin-arm64). npm then leaves the other
// platforms' optional packages out of the lockfile, and `npm ci` refuses the lockfile as out
// of sync. This adds an entry for each missing optional platform package, with the os/cpu/libc
// read from its name, so npm skips it on every other platform without fetching anything.
//
// Run after every `npm install`: node scripts/lockfile-platform-stubs.mjs  (--check to only verify)
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = [
  'x64',
  'arm64',
  'arm',
  'ia32',
  'ppc64',
  's390x',
  'riscv64',
  'loong64',
  'mips64el',
  'wasm32',
];

function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const meta = {};
  const os = tokens.find((t) => OS.includes(t));
  const cpu =
    tokens.find((t) => CPU.includes(t)) ?? (tokens.includes('universal') ? undefined : undefined);
  if (os) meta.os = [os];
  if (cpu) meta.cpu = [cpu];
  if (tokens.includes('musl') || tokens.includes('musleabihf')) meta.libc = ['musl'];
  else if (os === 'linux' && (tokens.includes('gnu') || tokens.includes('gnueabihf')))
    meta.libc = ['glibc'];
  if (tokens.includes('gnueabihf') || tokens.includes('musleabihf') || tokens.includes('eabi'))
    meta.cpu = ['arm'];
  if (tokens.includes('wasi') || tokens.includes('wasm32')) meta.cpu = ['wasm32'];
  return meta;
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => packages[c])) continue;
    const meta = platformOf(dep);
    if (!meta.os && !meta.cpu) continue; // not a platform binary: leave it to npm
    packages[`node_modules/${dep}`] = {
      version: range.replace(/^[\^~=]/, ''),
      ...(entry.dev && { dev: true }),
      optional: true,
      ...meta,
    };
    added.push(dep);
  }
}
if (process.argv.includes('--check')) {
  if (added.length) {
    console.error(
      `package-lock.json lacks ${added.length} platform stubs; run node scripts/lockfile-platform-stubs.mjs`,
    );
    process.exit(1);
  }
} else if (added.length) {
  lock.packages = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) =>
      a === '' ? -1 : b === '' ? 1 : a.localeCompare(b),
    ),
  );
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`added ${added.length} platform stubs: ${added.join(', ')}`);
}
