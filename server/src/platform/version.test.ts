import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { releaseVersion, VERSION } from './version.js';

describe('releaseVersion', () => {
  let dir: string;
  const url = () => pathToFileURL(dir + path.sep);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-version-'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version: '0.1.0' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the release the image was built as (release.json), not the package version', () => {
    writeFileSync(path.join(dir, 'release.json'), '{"version":"1.4.0"}\n');
    expect(releaseVersion(url())).toBe('1.4.0');
  });

  it('falls back to package.json in a checkout, or when the build named no release', () => {
    expect(releaseVersion(url())).toBe('0.1.0');
    writeFileSync(path.join(dir, 'release.json'), '{"version":""}\n');
    expect(releaseVersion(url())).toBe('0.1.0');
  });

  it('fails loudly on a damaged release.json rather than reporting a wrong version', () => {
    writeFileSync(path.join(dir, 'release.json'), '{"version":');
    expect(() => releaseVersion(url())).toThrow(SyntaxError);
  });

  it('the server reads its own package from src/ and dist/ alike', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
