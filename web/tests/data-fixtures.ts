/**
 * Fixtures for the pages that show business data: on top of ./fixtures.ts, the worker's stack
 * gets a signed-in administrator API (`adminApi`, for seeding) whose password has been changed
 * from the generated initial one (`admin`), and a read-only `operator` account. Tests seed data
 * under their own generated names, so they never see each other's rows.
 *
 * `testWithSync` gets a stack of its own with the synchronization worker on (1 s interval).
 */
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { test as base, withStack, type Stack } from './fixtures';
import { AdminApi, type Account } from './support/admin-api';

interface DataWorkerFixtures {
  adminSession: { api: AdminApi; account: Account };
  operator: Account;
}

interface DataTestFixtures {
  adminApi: AdminApi;
  admin: Account;
}

export const test = base.extend<DataTestFixtures, DataWorkerFixtures>({
  adminSession: [
    async ({ stack, playwright }, use) => {
      const session = await AdminApi.signIn(playwright, stack.serverURL, {
        username: stack.adminUsername,
        password: stack.adminPassword,
      });
      try {
        await use(session);
      } finally {
        await session.api.dispose();
      }
    },
    { scope: 'worker' },
  ],
  operator: [
    async ({ adminSession, playwright }, use) => {
      await use(await adminSession.api.createOperator(playwright));
    },
    { scope: 'worker' },
  ],
  adminApi: async ({ adminSession }, use) => {
    await use(adminSession.api);
  },
  // The language an administrator chooses is stored with the account, which every test of the
  // worker shares: each test starts from the browser's language, whatever the one before chose.
  admin: async ({ adminSession }, use) => {
    await adminSession.api.put('/api/auth/me/language', { language: null });
    await use(adminSession.account);
  },
});

interface OwnSite {
  stack: Stack;
  api: AdminApi;
  admin: Account;
}

/** A stack of the test's own with these settings, its administrator signed in through the API. */
async function withOwnSite(
  {
    nginxBin,
    runDir,
    playwright,
  }: { nginxBin: string; runDir: string; playwright: Parameters<typeof AdminApi.signIn>[0] },
  prefix: string,
  env: Record<string, string>,
  use: (site: OwnSite) => Promise<void>,
): Promise<void> {
  await withStack(
    nginxBin,
    mkdtempSync(path.join(runDir, prefix)),
    async (stack) => {
      const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
        username: stack.adminUsername,
        password: stack.adminPassword,
      });
      try {
        await use({ stack, api, admin: account });
      } finally {
        await api.dispose();
      }
    },
    env,
  );
}
/** A stack of its own with the push worker on, every second. */
export const testWithSync = base.extend<{ syncSite: OwnSite }>({
  syncSite: [
    async ({ nginxBin, runDir, playwright }, use) =>
      withOwnSite(
        { nginxBin, runDir, playwright },
        'sync-',
        { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: '1' },
        use,
      ),
    { timeout: 90_000 },
  ],
  site: async ({ syncSite }, use) => {
    await use(syncSite.stack);
  },
});

/** A stack of its own with the face check on (the shared stacks have it off). */
export const testWithFaces = base.extend<{ faceSite: OwnSite }>({
  faceSite: [
    async ({ nginxBin, runDir, playwright }, use) =>
      withOwnSite({ nginxBin, runDir, playwright }, 'faces-', { FACE_CHECK: 'on' }, use),
    { timeout: 90_000 },
  ],
  site: async ({ faceSite }, use) => {
    await use(faceSite.stack);
  },
});

export { expect } from './fixtures';
