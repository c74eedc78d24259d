import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heartbeatResponse } from '@svc/shared';
import { scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { SITE_HEADERS } from './site.js';

/** The `add_header` lines of web/nginx.conf.template's `location /` (Cache-Control aside). */
async function nginxSiteHeaders(): Promise<Record<string, string>> {
  const template = await readFile(
    new URL('../../../../web/nginx.conf.template', import.meta.url),
    'utf8',
  );
  const block = template.slice(template.indexOf('location / {'));
  const headers: Record<string, string> = {};
  for (const m of block.matchAll(/add_header\s+(\S+)\s+"([^"]*)"\s+always;/g)) {
    headers[m[1]!] = m[2]!;
  }
  return headers;
}

describe('the management site served beside /api', () => {
  let scratch: ScratchDb;
  let server: TestServer;
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-site-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>svc</title>');
    await writeFile(join(root, 'assets', 'index-abc123.js'), 'console.log(1);');
    await writeFile(join(root, 'favicon.svg'), '<svg/>');
    scratch = await scratchDb('sqlite');
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, siteRoot: root });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
    await rm(root, { recursive: true, force: true });
  });

  test('the headers are the nginx config’s, letter for letter', async () => {
    expect(await nginxSiteHeaders()).toEqual(SITE_HEADERS);
  });

  test.each(['/', '/people', '/devices/12', '/system'])(
    '%s answers index.html, no-cache, with the site headers',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      for (const [name, value] of Object.entries(SITE_HEADERS)) {
        expect(res.headers.get(name)).toBe(value);
      }
      expect(await res.text()).toContain('<title>svc</title>');
    },
  );

  test('hashed assets are cached a year; a missing one is a 404, never index.html', async () => {
    const hit = await fetch(`${server.url}/assets/index-abc123.js`);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(hit.headers.get('content-security-policy')).toBe(
      SITE_HEADERS['Content-Security-Policy'],
    );
    const miss = await fetch(`${server.url}/assets/gone-123.js`);
    expect(miss.status).toBe(404);
    expect(await miss.text()).not.toContain('<title>svc</title>');
    const file = await fetch(`${server.url}/favicon.svg`);
    expect(file.headers.get('cache-control')).toBe('no-cache');
  });

  test('/api keeps answering the API (JSON 404 for an unknown endpoint)', async () => {
    const beat = await fetch(`${server.url}/api/heartbeat`);
    expect(heartbeatResponse.parse(await beat.json()).state).toBe(1);
    const unknown = await fetch(`${server.url}/api/no-such-thing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    const post = await fetch(`${server.url}/people`, { method: 'POST' });
    expect(post.status).toBe(404);
  });

  test('migrations are logged as one line per run', () => {
    const lines = server.logs.lines.filter((l) => l.msg === 'migrations');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ applied: expect.any(Number) as number });
    expect(server.logs.lines.filter((l) => l.msg === 'migration' && l.level === 30)).toEqual([]);
  });
});
