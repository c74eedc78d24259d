import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, renderConfigTable, VARS, ConfigError } from './config.js';

describe('configuration', () => {
  test('defaults are the seed’s', () => {
    const c = loadConfig({});
    expect(c.http).toEqual({ host: '0.0.0.0', port: 8000 });
    expect(c.webPort).toBe(80);
    expect(c.db).toEqual({
      dialect: 'sqlite',
      storage: expect.stringMatching(/data\/svc\.sqlite$/),
    });
    expect(c.discovery).toEqual({
      enabled: true,
      host: '',
      httpBaseUrl: '',
      port: 20785,
      timeoutS: 45,
      maxNodes: 10_000,
    });
    expect(c.push).toEqual({ enabled: true, intervalS: 5 });
    expect(c.heartbeatTimeoutS).toBe(60);
    expect(c.panelUrl).toBe('');
    expect(c.adminInitialPassword).toBeUndefined();
  });

  test('DB_HOST switches to MySQL; DB_PASSWORD falls back to DB_ROOT_PASSWORD', () => {
    const c = loadConfig({ DB_HOST: 'svc_db', DB_ROOT_PASSWORD: 'root-secret-value' });
    expect(c.db).toEqual({
      dialect: 'mysql',
      host: 'svc_db',
      port: 3306,
      database: 'face_tp',
      user: 'root',
      password: 'root-secret-value',
    });
    const d = loadConfig({
      DB_HOST: 'db',
      DB_PASSWORD: 'app',
      DB_ROOT_PASSWORD: 'root',
      DB_DATABASE: 'x_1',
    });
    expect(d.db).toMatchObject({ password: 'app', database: 'x_1' });
  });

  test('DB_HOST takes the nodes of a cluster, each with its port or DB_PORT', () => {
    const c = loadConfig({ DB_HOST: 'galera1:3307, galera2,[fd00::3]:3309', DB_PORT: '3310' });
    expect(c.db).toMatchObject({
      dialect: 'mysql',
      host: 'galera1',
      port: 3307,
      nodes: [
        { host: 'galera1', port: 3307 },
        { host: 'galera2', port: 3310 },
        { host: 'fd00::3', port: 3309 },
      ],
    });
    expect(loadConfig({ DB_HOST: 'db:3307' }).db).toMatchObject({ host: 'db', port: 3307 });
    for (const bad of ['a,,b', 'a:0', 'a:70000', 'http://a', 'a:3306/x']) {
      expect(() => loadConfig({ DB_HOST: bad })).toThrow(/^DB_HOST: .*comma-separated list/);
    }
  });

  test.each([
    ['WEB_PORT', '0'],
    ['DB_PORT', '70000'],
    ['HTTP_PORT', '80a'],
    ['DB_DATABASE', 'face-tp; drop'],
    ['DISCOVERY_HOST', 'http://10.0.0.1'],
    ['DISCOVERY_PORT', ''.padEnd(6, '9')],
    ['SVC_PUSH_INTERVAL', '0'],
    ['HEARTBEAT_TIMEOUT', '1.5'],
    ['SVC_DISCOVERY_WORKER', '2'],
    ['DISCOVERY_MAX_NODES', '0'],
    ['DISCOVERY_MAX_NODES', '10k'],
    ['LOG_LEVEL', 'loud'],
    ['TRUSTED_PROXIES', 'everyone'],
    ['FACE_CHECK', 'sometimes'],
    ['FACE_MIN_PX', '8'],
  ])('%s=%j is refused with the variable named', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
  });

  test('secrets are never echoed in an error', () => {
    try {
      loadConfig({ ADMIN_INITIAL_PASSWORD: 'tiny' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect((err as Error).message).not.toContain('tiny');
    }
  });

  test('DEVICE_KEY_SECRET_FILE is read at boot: a missing or malformed file stops the start, unechoed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-secret-'));
    try {
      const good = path.join(dir, 'good');
      await writeFile(good, `${randomBytes(32).toString('base64')}\n`);
      expect(loadConfig({ DEVICE_KEY_SECRET_FILE: good }).deviceKeySecretFile).toBe(good);
      expect(loadConfig({}).deviceKeySecretFile).toBeUndefined();
      expect(() => loadConfig({ DEVICE_KEY_SECRET_FILE: path.join(dir, 'absent') })).toThrow(
        /^DEVICE_KEY_SECRET_FILE: cannot read .*absent \(ENOENT\)$/,
      );
      const short = path.join(dir, 'short');
      await writeFile(short, 'not-a-32-byte-secret');
      let message = '';
      try {
        loadConfig({ DEVICE_KEY_SECRET_FILE: short });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/^DEVICE_KEY_SECRET_FILE: .*must hold a 32-byte secret as base64$/);
      expect(message).not.toContain('not-a-32-byte-secret');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the README’s configuration table is the table the code validates against', async () => {
    const readme = await readFile(new URL('../../../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('<!-- config-table:start -->');
    const end = readme.indexOf('<!-- config-table:end -->');
    expect(start).toBeGreaterThan(0);
    const table = readme.slice(start + '<!-- config-table:start -->'.length, end).trim();
    expect(table).toBe(renderConfigTable());
    // Every parameter of the seed's table is there (IMAGE_ARCHIVE belongs to the deploy scripts).
    for (const name of [
      'DB_ROOT_PASSWORD',
      'DB_DATABASE',
      'WEB_PORT',
      'DB_PORT',
      'DISCOVERY_HOST',
      'DISCOVERY_HTTP_BASE_URL',
      'DISCOVERY_PORT',
      'DISCOVERY_TIMEOUT',
      'SVC_PUSH_WORKER',
      'SVC_PUSH_INTERVAL',
      'SVC_DISCOVERY_WORKER',
      'PANEL_URL',
      'HEARTBEAT_TIMEOUT',
    ]) {
      expect(Object.keys(VARS)).toContain(name);
    }
  });
});
