/**
 * HTTPS on svc_web: a certificate generated here, the image's own TLS step
 * (web/docker-entrypoint.d/17-svc-tls.sh) and web/nginx.conf.template on the real nginx, in
 * front of the real server. Without a certificate the worker's plain stack serves HTTP only.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { heartbeatResponse } from '@svc/shared';
import { expect, test } from './fixtures';
import { ChangePasswordPage, LoginPage } from './pages';
import { startNginx, startServer, type RunningNginx } from './support/stack';

/** A self-signed certificate for 127.0.0.1 (openssl, 2048-bit RSA, one day). */
function generateCertificate(dir: string): { cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const result = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=svc-test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl failed: ${result.stderr}`);
  return { cert, key };
}

test.describe('HTTPS with a certificate and key', () => {
  test('443 with HSTS, HTTP redirects except machine endpoints, the session cookie is Secure', async ({
    nginxBin,
    runDir,
    browser,
    playwright,
  }) => {
    test.setTimeout(90_000);
    const dir = path.join(runDir, 'https');
    const tls = generateCertificate(path.join(dir, 'tls'));
    const server = await startServer(dir);
    let nginx: RunningNginx | undefined;
    try {
      nginx = await startNginx({ nginxBin, runDir: dir, upstream: new URL(server.url).host, tls });
      const httpsURL = nginx.httpsURL ?? '';
      expect(httpsURL).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const plain = await playwright.request.newContext({ baseURL: nginx.url });
      const secure = await playwright.request.newContext({
        baseURL: httpsURL,
        ignoreHTTPSErrors: true,
      });
      try {
        // The site over HTTPS, with Strict-Transport-Security.
        const site = await secure.get('/people');
        expect(site.status()).toBe(200);
        expect(site.headers()['strict-transport-security']).toBe('max-age=31536000');

        // Plain HTTP: the site and the session API are redirected, path and query kept.
        for (const [method, target] of [
          ['GET', '/people?q=a'],
          ['GET', '/api/auth/me'],
          ['POST', '/api/auth/login'],
        ] as const) {
          const answer = await plain.fetch(target, { method, maxRedirects: 0 });
          expect(answer.status(), `${method} ${target}`).toBe(308);
          expect(answer.headers().location).toBe(`${httpsURL}${target}`);
        }

        // Machine endpoints stay on plain HTTP: monitoring, host checks, devices, terminals.
        const heartbeat = await plain.get('/api/heartbeat', { maxRedirects: 0 });
        expect(heartbeat.status()).toBe(200);
        expect(heartbeatResponse.parse(await heartbeat.json()).state).toBe(1);
        expect((await plain.get('/healthz', { maxRedirects: 0 })).status()).toBe(200);
        for (const target of ['/api/device/heartbeat', '/api/recognition/events']) {
          const device = await plain.post(target, { data: {}, maxRedirects: 0 });
          // The server's own refusal (no device key), not a redirect.
          expect(device.status(), target).toBe(401);
        }
      } finally {
        await plain.dispose();
        await secure.dispose();
      }

      // A browser that types the http:// address ends on HTTPS and gets a Secure session cookie.
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      try {
        const page = await context.newPage();
        const login = new LoginPage(page);
        await login.goto(`${nginx.url}/`);
        expect(page.url()).toBe(`${httpsURL}/`);
        await login.signIn('admin', server.adminPassword);
        await expect(new ChangePasswordPage(page).heading).toBeVisible();
        const session = (await context.cookies(httpsURL)).find((c) => c.name === 'svc_session');
        expect(session?.secure).toBe(true);
        expect(session?.httpOnly).toBe(true);
      } finally {
        await context.close();
      }
    } finally {
      await nginx?.process.stop();
      await server.process.stop();
    }
  });
});

test.describe('without a certificate', () => {
  test('plain HTTP on the Web port, no HSTS, no redirect', async ({ request }) => {
    const site = await request.get('/people', { maxRedirects: 0 });
    expect(site.status()).toBe(200);
    expect(site.headers()['strict-transport-security']).toBeUndefined();
    expect(
      (await request.post('/api/auth/login', { data: {}, maxRedirects: 0 })).status(),
    ).not.toBe(308);
  });
});
