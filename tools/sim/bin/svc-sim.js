#!/usr/bin/env node
// The bin link is made by `npm ci`, before `dist/` exists, so the link points at this committed
// file, which runs the built CLI (`npm start` and `npm run build` build it).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'svc-sim: not built yet; run `npm run build -w @svc/sim` (or `npm start`)\n',
  );
  process.exit(2);
}
await import(cli.href);
