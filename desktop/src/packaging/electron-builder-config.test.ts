import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const desktopDir = path.join(repoRoot, 'desktop');

describe('electron-builder.yml', () => {
  it('passes electron-builder’s own schema and packages the built console from desktop/', async () => {
    const config = await getConfig(repoRoot, path.join(repoRoot, 'electron-builder.yml'), null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();

    expect(config.appId).toBe('local.svc.console');
    expect(config.productName).toBe('svc console');
    expect(config.directories?.app).toBe('desktop');
    expect(config.publish).toBeNull();
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.target).toEqual(['dmg']);

    // The app manifest's entry point, and the preload the main process loads, are packed.
    const manifest = JSON.parse(readFileSync(path.join(desktopDir, 'package.json'), 'utf8')) as {
      main: string;
    };
    expect(manifest.main).toBe('dist/main/main.js');
    const files = JSON.stringify(config.files);
    expect(files).toContain('"dist/**/*"');
    expect(files).toContain('"package.json"');
  });
});
