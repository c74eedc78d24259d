import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { panelRoute } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer } from '../test/harness.js';
import { TestClient } from '../test/http-client.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { INITIAL_PASSWORD_FILE } from '../auth/accounts.js';

const CHANGED = 'violet harbor tractor seventeen';

describe.each(DIALECTS)('first start exactly once on %s', (dialect) => {
  let scratch: ScratchDb;
  beforeEach(async () => {
    scratch = await scratchDb(dialect);
  });
  afterEach(async () => {
    await scratch.drop();
  });

  test('empty database: schema, organization, admin with a 0600 password file; restart with other env changes nothing', async () => {
    const first = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { ADMIN_INITIAL_PASSWORD: '', PANEL_URL: 'http://10.0.0.5:8181/api/recognition' },
    });
    const result = await first.ready;
    expect(result.seeded).toBe(true);
    expect(result.migrationsApplied.length).toBeGreaterThan(0);
    const file = path.join(scratch.dataDir, INITIAL_PASSWORD_FILE);
    expect(result.passwordFile).toBe(file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const password = (await readFile(file, 'utf8')).trim();
    expect(password.length).toBeGreaterThanOrEqual(20);
    // The log names the file and never the password.
    expect(first.logs.text()).toContain(file);
    expect(first.logs.text()).not.toContain(password);

    const c = new TestClient(first.url);
    expect((await c.login('admin', password)).status).toBe(200);
    expect(
      (await c.post('/api/auth/password', { currentPassword: password, newPassword: CHANGED }))
        .status,
    ).toBe(204);
    // A changed password makes the initial file stale: it is removed.
    await expect(stat(file)).rejects.toThrow();

    const before = {
      orgs: await first.ctx.models.Organization.findAll({ raw: true }),
      admins: await first.ctx.models.Administrator.findAll({ raw: true }),
      initializedAt: await first.ctx.settings.get(SettingKey.initializedAt, z.string()),
      panel: await first.ctx.settings.get(SettingKey.panelRoute, panelRoute),
    };
    expect(before.panel).toEqual({ mode: 'local', url: 'http://10.0.0.5:8181/api/recognition' });
    await first.stop();

    const second = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: {
        ADMIN_INITIAL_PASSWORD: 'another-initial-password-42',
        PANEL_URL: 'http://10.9.9.9:8181/other',
        DISCOVERY_TIMEOUT: '90',
      },
    });
    const again = await second.ready;
    expect(again).toEqual({ migrationsApplied: [], seeded: false });
    expect(await second.ctx.models.Organization.findAll({ raw: true })).toEqual(before.orgs);
    expect(await second.ctx.models.Administrator.findAll({ raw: true })).toEqual(before.admins);
    expect(await second.ctx.settings.get(SettingKey.initializedAt, z.string())).toBe(
      before.initializedAt,
    );
    expect(await second.ctx.settings.get(SettingKey.panelRoute, panelRoute)).toEqual(before.panel);
    await expect(stat(file)).rejects.toThrow();

    const d = new TestClient(second.url);
    expect((await d.login('admin', 'another-initial-password-42')).status).toBe(401);
    const login = await d.login('admin', CHANGED);
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ user: { mustChangePassword: false } });
    await second.stop();
  });

  if (dialect === 'mysql') {
    test('two servers starting at once on one empty database seed it once', async () => {
      const [a, b] = await Promise.all([
        startTestServer({ db: scratch.db, dataDir: scratch.dataDir, waitReady: false }),
        startTestServer({ db: scratch.db, dataDir: scratch.dataDir, waitReady: false }),
      ]);
      const results = await Promise.all([a.ready, b.ready]);
      expect(results.filter((r) => r.seeded)).toHaveLength(1);
      expect(await a.ctx.models.Organization.count()).toBe(1);
      expect(await a.ctx.models.Administrator.count()).toBe(1);
      await Promise.all([a.stop(), b.stop()]);
    });
  }
});
