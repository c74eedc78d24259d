// The build's step after tsc: writes the console's IPC channels, from the one list of methods in
// src/core/ipc.ts, into dist/main/preload.cjs. A sandboxed preload can require nothing but
// electron, so the list cannot be imported when it runs (src/main/preload.test.ts runs the
// preload written the same way).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = path.resolve(import.meta.dirname, '..', 'dist');
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { PRELOAD_CHANNELS } = await load('core/ipc.js');
const { withChannels } = await load('core/ipc-channels.js');
const preload = path.join(dist, 'main', 'preload.cjs');
writeFileSync(preload, withChannels(readFileSync(preload, 'utf8'), PRELOAD_CHANNELS));
console.log(`preload: ${Object.keys(PRELOAD_CHANNELS.invoke).length} methods written in`);
