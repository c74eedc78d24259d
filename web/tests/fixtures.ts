/**
 * Fixtures. Nothing is shared between workers: each worker has its own temp dir, and every
 * svc_server started here gets a fresh data dir, its own port and its own generated admin
 * password, behind its own nginx. All of it is stopped in teardown whatever the tests did.
 *
 * - `test`: the browser and `request` talk to the worker's stack (`stack`), started once per
 *   worker; for tests that change nothing on the server.
 * - `testWithOwnServer`: the test gets a stack of its own (`site`); for tests that change the
 *   server's state (the admin password, failed-sign-in counters), so they can run in any order,
 *   be retried and be repeated.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test as base, type APIRequestContext } from '@playwright/test';
import { findNginx, keepRunDirs } from './support/env';
import { startEchoServer } from './support/echo';
import { startNginx, startServer } from './support/stack';

export interface Stack {
  /** nginx, serving web/dist and proxying /api/ to the server: what a browser uses. */
  webURL: string;
  /** svc_server directly. */
  serverURL: string;
  adminUsername: string;
  /** ADMIN_INITIAL_PASSWORD given to the server at its first start. */
  adminPassword: string;
  /** Log tails, attached to failed tests. */
  logs(): string;
}

export interface EchoProxy {
  /** nginx with the site config, proxying /api/ to a server that echoes each request. */
  webURL: string;
  request: APIRequestContext;
}

interface WorkerFixtures {
  /** Worker options; the defaults come from the environment (see support/env.ts). */
  nginxBin: string;
  keepRunDir: boolean;
  /** This worker's temp dir: server data, rendered nginx configs, logs. */
  runDir: string;
  /** The worker's shared stack. */
  stack: Stack;
  echoProxy: EchoProxy;
}

interface TestFixtures {
  /** The stack this test's browser and `request` use. */
  site: Stack;
}

/** Starts svc_server and nginx in `dir`; `use` runs while both are up, then both are stopped. */
export async function withStack(
  nginxBin: string,
  dir: string,
  use: (stack: Stack) => Promise<void>,
  serverEnv: Readonly<Record<string, string>> = {},
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const server = await startServer(dir, serverEnv);
  try {
    const nginx = await startNginx({ nginxBin, runDir: dir, upstream: new URL(server.url).host });
    try {
      await use({
        webURL: nginx.url,
        serverURL: server.url,
        adminUsername: 'admin',
        adminPassword: server.adminPassword,
        logs: () =>
          `--- svc_server (${server.process.logFile}) ---\n${server.process.tail()}\n` +
          `--- nginx (${nginx.process.logFile}) ---\n${nginx.process.tail()}\n`,
      });
    } finally {
      await nginx.process.stop();
    }
  } finally {
    await server.process.stop();
  }
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  nginxBin: [findNginx() ?? 'nginx', { scope: 'worker', option: true }],
  keepRunDir: [keepRunDirs, { scope: 'worker', option: true }],

  runDir: [
    async ({ keepRunDir }, use, workerInfo) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), `svc-web-w${workerInfo.parallelIndex}-`));
      try {
        await use(dir);
      } finally {
        if (!keepRunDir) rmSync(dir, { recursive: true, force: true });
      }
    },
    { scope: 'worker' },
  ],

  stack: [
    async ({ nginxBin, runDir }, use) => {
      await withStack(nginxBin, path.join(runDir, 'shared'), use);
    },
    { scope: 'worker', timeout: 90_000 },
  ],

  echoProxy: [
    async ({ nginxBin, runDir, playwright }, use) => {
      const echo = await startEchoServer();
      try {
        const nginx = await startNginx({
          nginxBin,
          runDir: path.join(runDir, 'echo'),
          upstream: echo.address,
        });
        try {
          const request = await playwright.request.newContext({ baseURL: nginx.url });
          try {
            await use({ webURL: nginx.url, request });
          } finally {
            await request.dispose();
          }
        } finally {
          await nginx.process.stop();
        }
      } finally {
        await echo.close();
      }
    },
    { scope: 'worker', timeout: 30_000 },
  ],

  site: async ({ stack }, use) => {
    await use(stack);
  },

  baseURL: async ({ site }, use) => {
    await use(site.webURL);
  },

  // Fails a test whose page broke the Content Security Policy or threw an uncaught error, and
  // attaches the server and nginx logs to a failed test.
  page: async ({ page, site }, use, testInfo) => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content.Security.Policy/i.test(message.text())) {
        problems.push(`CSP: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await use(page);
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('stack logs', { body: site.logs(), contentType: 'text/plain' });
    }
    expect(problems, 'the page reported errors').toEqual([]);
  },
});

export const testWithOwnServer = test.extend<TestFixtures>({
  site: [
    async ({ nginxBin, runDir }, use) => {
      await withStack(nginxBin, mkdtempSync(path.join(runDir, 'test-')), use);
    },
    { scope: 'test', timeout: 90_000 },
  ],
});

export { expect };
