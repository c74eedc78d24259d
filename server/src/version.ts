import { readFileSync } from 'node:fs';

/** The release version, from server/package.json (same path from src/ and dist/). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
