import { readFileSync } from 'node:fs';

/**
 * The release version the heartbeat reports: `release.json` beside package.json, which the
 * image build writes from the release tag (server/Dockerfile), else server/package.json's
 * version (a checkout). `dir` is the server package's directory, the same from src/ and dist/.
 */
export function releaseVersion(dir: URL = new URL('../../', import.meta.url)): string {
  const read = (name: string): unknown => {
    try {
      return (JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as { version?: unknown })
        .version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const baked = read('release.json');
  if (typeof baked === 'string' && baked.trim() !== '') return baked.trim();
  const version = read('package.json');
  if (typeof version !== 'string') throw new Error('server/package.json has no version');
  return version;
}

export const VERSION: string = releaseVersion();
