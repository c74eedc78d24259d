import net from 'node:net';
import http from 'node:http';
import { heartbeatResponse } from '@svc/shared';
import { expect, test } from './fixtures';
import type { EchoAnswer } from './support/echo';

const securityHeaders = (headers: Record<string, string>) => {
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['content-security-policy']).toContain("default-src 'self'");
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers.server).toBe('nginx');
};

test.describe('nginx in front of the real server', () => {
  test('/ and deep links answer index.html, revalidated on every load', async ({ request }) => {
    const root = await request.get('/');
    expect(root.status()).toBe(200);
    expect(root.headers()['content-type']).toContain('text/html');
    expect(root.headers()['cache-control']).toBe('no-cache');
    const html = await root.text();
    expect(html).toContain('<div id="root"></div>');

    for (const deepLink of ['/people', '/people/123/edit', '/spaces?tab=all']) {
      const response = await request.get(deepLink);
      expect(response.status(), deepLink).toBe(200);
      expect(response.headers()['cache-control'], deepLink).toBe('no-cache');
      expect(await response.text(), deepLink).toBe(html);
    }
  });

  test('hashed assets are cached for a year; a missing asset is a 404', async ({ request }) => {
    const html = await (await request.get('/')).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)$/);
      const response = await request.get(asset!);
      expect(response.status(), asset).toBe(200);
      expect(response.headers()['cache-control'], asset).toBe(
        'public, max-age=31536000, immutable',
      );
      expect(response.headers()['content-type'], asset).toMatch(/javascript|css/);
      securityHeaders(response.headers());
    }
    const missing = await request.get('/assets/index-doesnotexist.js');
    expect(missing.status()).toBe(404);
    expect(missing.headers()['cache-control']).toBeUndefined();
  });

  test('security headers are on the site', async ({ request }) => {
    for (const path of ['/', '/people', '/favicon.svg']) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(200);
      securityHeaders(response.headers());
    }
  });

  test('/api/heartbeat through nginx answers state 1', async ({ request }) => {
    const response = await request.get('/api/heartbeat');
    expect(response.status()).toBe(200);
    const body = heartbeatResponse.parse(await response.json());
    expect(body.state).toBe(1);
    expect(body.service).toBe('svc');
    // Site headers are not added to API answers (the server sets its own).
    expect(response.headers()['cache-control']).not.toBe('no-cache');
  });

  test('/healthz answers 200 for the container health check', async ({ request }) => {
    const response = await request.get('/healthz');
    expect(response.status()).toBe(200);
    expect(await response.text()).toBe('ok\n');
  });
});

test.describe('nginx proxy behaviour (upstream echoes requests)', () => {
  test('forwarding headers are set by nginx; client-sent ones are not passed on', async ({
    echoProxy,
  }) => {
    const response = await echoProxy.request.get('/api/anything?x=1', {
      headers: {
        'X-Forwarded-For': '203.0.113.7, 198.51.100.1',
        'X-Real-IP': '203.0.113.7',
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-Host': 'evil.example',
        Forwarded: 'for=203.0.113.7;proto=https',
      },
    });
    expect(response.status()).toBe(200);
    const echoed = (await response.json()) as EchoAnswer;
    expect(echoed.url).toBe('/api/anything?x=1');
    expect(echoed.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echoed.headers['x-real-ip']).toBe('127.0.0.1');
    expect(echoed.headers['x-forwarded-proto']).toBe('http');
    expect(echoed.headers.host).toBe('127.0.0.1');
    expect(echoed.headers['x-forwarded-host']).toBeUndefined();
    expect(echoed.headers.forwarded).toBeUndefined();
  });

  test('request bodies pass; more than 64 MiB is refused with 413', async ({ echoProxy }) => {
    const small = await echoProxy.request.post('/api/upload', {
      data: Buffer.alloc(2 * 1024 * 1024, 1),
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(small.status()).toBe(200);
    expect(((await small.json()) as EchoAnswer).bodyBytes).toBe(2 * 1024 * 1024);

    // nginx judges the declared length before reading any of the body.
    const status = await rawStatus(
      echoProxy.webURL,
      'POST /api/upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\n' +
        `Content-Length: ${64 * 1024 * 1024 + 1}\r\nConnection: close\r\n\r\n`,
    );
    expect(status).toBe(413);
  });

  test('an event stream passes through as it is sent, before the response ends', async ({
    echoProxy,
  }) => {
    const first = await new Promise<string>((resolve, reject) => {
      const request = http.get(`${echoProxy.webURL}/api/stream`, (response) => {
        response.setEncoding('utf8');
        response.once('data', (chunk: string) => {
          resolve(chunk);
          request.destroy();
        });
      });
      request.once('error', reject);
      // The upstream holds the stream open for 30 s, so this only passes if nginx forwards the
      // event without waiting for the end of the response.
      request.setTimeout(5_000, () => reject(new Error('no event within 5 s')));
    });
    expect(first).toContain('data: first');
  });
});

/** Sends raw request bytes and returns the status code of the answer. */
function rawStatus(baseURL: string, requestText: string): Promise<number> {
  const { hostname, port } = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(requestText));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match !== null) {
        resolve(Number(match[1]));
        socket.destroy();
      }
    });
    socket.once('error', reject);
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no answer; got: ${received}`));
    });
  });
}
