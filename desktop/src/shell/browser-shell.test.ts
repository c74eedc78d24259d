import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createConsoleService } from '../core/console-service.js';
import { TerminalDirectory } from '../core/terminal-directory.js';
import { FakeClock } from '../testing/fake-clock.js';
import { closeSocket, openSender, sendTo } from '../testing/udp.js';
import { openNodeUdpSocket } from '@svc/shared/udp';
import { startBrowserShell, type BrowserShell } from './browser-shell.js';

/** A raw request, so Host, Origin and Cookie are exactly what the test says. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('browser shell', () => {
  let shell: BrowserShell;
  let directory: TerminalDirectory;
  let cookie: string;
  beforeAll(async () => {
    const rendererDir = mkdtempSync(path.join(os.tmpdir(), 'svc-console-renderer-'));
    mkdirSync(path.join(rendererDir, 'assets'));
    writeFileSync(
      path.join(rendererDir, 'index.html'),
      '<meta name="csp-nonce" content="__CSP_NONCE__">',
    );
    writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(path.join(os.tmpdir(), 'svc-console-secret.txt'), 'secret');
    const clock = new FakeClock();
    directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock }, { port: 0 });
    await directory.start();
    const service = createConsoleService({ directory, clock });
    shell = await startBrowserShell(service, { rendererDir });
  });
  afterAll(async () => {
    await shell.close();
    await directory.close();
  });

  it('prints a 127.0.0.1 URL with a token that is good once, for an HttpOnly SameSite cookie', async () => {
    expect(shell.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    expect((await raw(`${shell.origin}/`)).status).toBe(401);
    expect((await raw(`${shell.origin}/?token=wrong`)).status).toBe(403);
    const first = await raw(shell.url);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const setCookie = first.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/HttpOnly; SameSite=Strict/);
    cookie = setCookie.split(';')[0]!;
    const again = await raw(shell.url);
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('keeps access across browser restarts, prints a fresh link on demand, and explains itself to a browser', async () => {
    // A cookie with an expiry survives the browser being closed (a session cookie does not).
    const granted = await raw(shell.freshLink());
    expect(granted.headers['set-cookie']?.[0]).toMatch(/Max-Age=\d{5,}/);
    // A browser without access gets a page that says what to do, not raw JSON.
    const page = await raw(`${shell.origin}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('press Enter: it prints a fresh link');
    // In the browser's language, its title too.
    const zh = await raw(`${shell.origin}/`, {
      headers: { accept: 'text/html', 'accept-language': 'zh-CN,zh;q=0.9' },
    });
    expect(zh.body).toContain('<title>svc 控制台</title>');
    expect(zh.body).toContain('<h1>svc 控制台</h1>');
    expect(zh.body).not.toContain('svc console');
    const used = await raw(shell.url, { headers: { accept: 'text/html' } });
    expect(used.headers['content-type']).toMatch(/^text\/html/);
    // A fresh link works once, and makes the unused earlier one worthless.
    const older = shell.freshLink();
    const newer = shell.freshLink();
    expect((await raw(older)).status).toBe(403);
    expect((await raw(newer)).status).toBe(303);
    expect((await raw(newer)).status).toBe(403);
  });

  it('serves the page with a fresh CSP nonce, and nothing outside the renderer', async () => {
    const page = await raw(`${shell.origin}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const nonce = /content="([^"]+)"/.exec(page.body)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    expect(page.headers['content-security-policy']).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await raw(`${shell.origin}/assets/app.js`, { headers: { cookie } })).status).toBe(200);
    for (const p of [
      '/..%2fsvc-console-secret.txt',
      '/%2e%2e/svc-console-secret.txt',
      '/assets/x.exe',
    ]) {
      expect((await raw(`${shell.origin}${p}`, { headers: { cookie } })).status).toBe(404);
    }
    expect((await raw(`${shell.origin}/assets/app.js`)).status).toBe(401);
  });

  it('answers calls only with the cookie, this Host and this Origin', async () => {
    const call = (headers: Record<string, string>, body = '[]', name = 'get-status') =>
      raw(`${shell.origin}/api/call/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const ok = await call({ cookie, origin: shell.origin });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ listening: true });
    expect((await call({ origin: shell.origin })).status).toBe(401);
    expect((await call({ cookie })).status).toBe(403);
    expect((await call({ cookie, origin: 'http://evil.example' })).status).toBe(403);
    const rebound = await call({ cookie, origin: shell.origin, host: 'evil.example' });
    expect(rebound.status).toBe(421);
    const bad = await call({ cookie, origin: shell.origin }, '["not an address"]', 'diagnose');
    expect(bad.status).toBe(400);
    const refusal = (JSON.parse(bad.body) as { error: { code: string; message: string } }).error;
    expect(refusal.code).toBe('invalid_input');
    // Said as what was wrong, never as a channel name or an API path.
    expect(refusal.message).toMatch(/^The console refused this: /);
    expect(refusal.message).not.toMatch(/svc-console|\/api\//);
    expect((await call({ cookie, origin: shell.origin }, '{', 'diagnose')).status).toBe(400);
    expect((await call({ cookie, origin: shell.origin }, '[]', 'no-such')).status).toBe(404);
    const failed = await call({ cookie, origin: shell.origin }, '["pdf"]', 'get-report');
    expect(failed.status).toBe(422);
    expect((JSON.parse(failed.body) as { error: { message: string } }).error.message).toMatch(
      /no report yet/i,
    );
  });

  it('streams the terminal list as server-sent events', async () => {
    const frames: string[] = [];
    const req = http.get(`${shell.origin}/api/events`, {
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    let firstFrame: () => void = () => undefined;
    const gotFirst = new Promise<void>((resolve) => (firstFrame = resolve));
    let type = '';
    const gotTwo = new Promise<void>((resolve) => {
      req.on('response', (res) => {
        type = res.headers['content-type'] ?? '';
        res.on('data', (chunk: Buffer) => {
          frames.push(chunk.toString());
          firstFrame();
          if (frames.join('').split('\n\n').length > 2) resolve();
        });
      });
    });
    const sender = await openSender();
    const announce = JSON.stringify({
      svc: 'discovery',
      v: 1,
      type: 'announce',
      id: 'ENR-7',
      kind: 'enrollment',
      port: 8182,
    });
    // Sent after the first frame arrives, so it is the second one.
    await gotFirst;
    await sendTo(sender, announce, directory.status().local!.port);
    await gotTwo;
    req.destroy();
    await closeSocket(sender);
    expect(type).toBe('text/event-stream');
    const events = frames.join('').split('\n\n').filter(Boolean);
    expect(events[0]).toBe('event: terminals\ndata: []');
    expect(events[1]).toMatch(/^event: terminals\ndata: \[\{.*"id":"ENR-7".*"online":true/);
    const noFetchSite = await raw(`${shell.origin}/api/events`, {
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(noFetchSite.status).toBe(403);
  });
});
