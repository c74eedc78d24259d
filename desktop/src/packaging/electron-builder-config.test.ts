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

  it('is a release: fuses set, the deb has a maintainer, icons, no second copy of the renderer', async () => {
    const config = await getConfig(repoRoot, path.join(repoRoot, 'electron-builder.yml'), null);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    expect(config.linux?.maintainer).toMatch(/^[^<>]+ <[^@\s]+@[^@\s]+>$/);
    // A project's own address, not a placeholder a package index would bounce (RFC 2606/6761
    // names), and a team rather than a person.
    const domain = /@([^>]+)>$/.exec(config.linux?.maintainer ?? '')?.[1] ?? '';
    expect(domain).not.toMatch(/(^|\.)(example(\.(com|net|org))?|test|invalid|localhost|local)$/);
    expect(config.linux?.maintainer).toMatch(/team|project|packaging/i);
    for (const icon of [config.linux?.icon, config.win?.icon, config.mac?.icon]) {
      expect(icon).toBe('build/icon.png');
    }
    // electron-builder makes every platform's icon from one PNG of at least 512 × 512.
    const png = readFileSync(path.join(desktopDir, 'build', 'icon.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);

    // What Vite bundled into dist/renderer must not ship again as node_modules.
    const manifest = JSON.parse(readFileSync(path.join(desktopDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const bundled of [
      'react',
      'react-dom',
      '@mantine/core',
      '@mantine/hooks',
      '@tanstack/react-query',
    ]) {
      expect(Object.keys(manifest.dependencies)).not.toContain(bundled);
    }
  });
});
