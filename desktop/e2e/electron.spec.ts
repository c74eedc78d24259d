import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { testDiscoveryPort } from '../src/testing/central-process.js';

// electron's package records its downloaded binary in path.txt; without it there is no binary
// (ELECTRON_SKIP_BINARY_DOWNLOAD=1, as on our machines), and requiring it would try to download.
const electronDir = path.resolve(import.meta.dirname, '..', '..', 'node_modules', 'electron');
const pathFile = path.join(electronDir, 'path.txt');
const binary = existsSync(pathFile)
  ? path.join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim())
  : null;
const missing =
  binary === null || !existsSync(binary)
    ? `the Electron binary is not installed (${pathFile} absent: ELECTRON_SKIP_BINARY_DOWNLOAD); the browser shell covers the renderer`
    : null;

test('the Electron shell opens the console window with the terminal list', async () => {
  test.skip(missing !== null, missing ?? '');
  const app = await electron.launch({
    executablePath: binary!,
    args: [path.resolve(import.meta.dirname, '..')],
    env: {
      ...process.env,
      DISCOVERY_PORT: String(testDiscoveryPort(33000)),
      DISCOVERY_PROBE_ADDRESSES: '127.255.255.255',
    },
  });
  try {
    const window = await app.firstWindow();
    await expect(window.getByRole('heading', { name: 'svc console' })).toBeVisible();
    await expect(window.getByRole('tab', { name: 'Terminals' })).toBeVisible();
  } finally {
    await app.close();
  }
});
