import { defineConfig, devices } from '@playwright/test';
import { chromiumPath } from './tests/support/env';

/**
 * End-to-end tests against the real stack (svc_server + nginx with web/nginx.conf.template +
 * web/dist), one stack per worker; see tests/fixtures.ts. Chromium comes from the system.
 */
export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  globalSetup: './tests/global-setup.ts',
  fullyParallel: true,
  // Two stacks at once: the tests mostly wait on their servers, so a second worker shortens
  // the suite even on two cores (CI's budget; figures in the commit).
  workers: 2,
  forbidOnly: process.env.CI !== undefined,
  retries: process.env.CI !== undefined ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI !== undefined ? [['list'], ['github']] : 'list',
  use: {
    trace: 'retain-on-failure',
    // The theme honours reduced motion: no modal half faded in when axe measures contrast.
    contextOptions: { reducedMotion: 'reduce' },
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
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
    },
  ],
});
