import { defineConfig } from '@playwright/test';

const chromiumPath = process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The console end to end: its browser shell (`npm run console`'s CLI) in real Chromium, against
 * svc_server, svc_web (nginx + web/dist) and `tools/sim` terminals, device and display.
 */
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: 1,
  forbidOnly: process.env.CI !== undefined,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: 'list',
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    browserName: 'chromium',
    acceptDownloads: true,
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
  },
});
