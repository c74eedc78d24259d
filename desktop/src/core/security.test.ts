import path from 'node:path';
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  isAppUrl,
  resolveAppAsset,
  responseHeaders,
  secureWebPreferences,
} from './security.js';

const root = path.resolve('/opt/svc-console/renderer');

describe('isAppUrl', () => {
  it.each([
    [APP_ENTRY_URL, true],
    ['svc-console://app/', true],
    ['svc-console://app/assets/index.js?x=1#y', true],
    ['svc-console://other/index.html', false],
    ['svc-console://user:pw@app/index.html', false],
    ['file:///opt/svc-console/renderer/index.html', false],
    ['http://127.0.0.1:8182/api/config', false],
    ['https://app/index.html', false],
    ['about:blank', false],
    ['', false],
    [null, false],
    [undefined, false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isAppUrl(url)).toBe(expected);
  });
});

describe('resolveAppAsset', () => {
  it('maps app URLs to files inside the renderer directory', () => {
    expect(resolveAppAsset(root, APP_ENTRY_URL)).toBe(path.join(root, 'index.html'));
    expect(resolveAppAsset(root, 'svc-console://app/')).toBe(path.join(root, 'index.html'));
    expect(resolveAppAsset(root, 'svc-console://app/assets/app.js?v=2')).toBe(
      path.join(root, 'assets', 'app.js'),
    );
    expect(resolveAppAsset(root, 'svc-console://app/assets/my%20font.woff2')).toBe(
      path.join(root, 'assets', 'my font.woff2'),
    );
  });

  it('keeps dot segments inside the renderer directory (the URL parser removes them)', () => {
    expect(resolveAppAsset(root, 'svc-console://app/../../etc/passwd.json')).toBe(
      path.join(root, 'etc', 'passwd.json'),
    );
    expect(resolveAppAsset(root, 'svc-console://app/%2e%2e/%2e%2e/etc/x.js')).toBe(
      path.join(root, 'etc', 'x.js'),
    );
  });

  it.each([
    ['encoded slashes climbing out', 'svc-console://app/assets/..%2f..%2f..%2fetc%2fx.js'],
    ['encoded backslashes', 'svc-console://app/..%5c..%5cx.js'],
    ['a NUL byte', 'svc-console://app/a%00.js'],
    ['broken percent-encoding', 'svc-console://app/%E0%A4%A'],
    ['a source file', 'svc-console://app/main/main.ts'],
    ['a kind of file never served', 'svc-console://app/secret.db'],
    ['another host', 'svc-console://evil/index.html'],
    ['another scheme', 'file:///etc/passwd'],
  ])('refuses %s', (_why, url) => {
    expect(resolveAppAsset(root, url)).toBeNull();
  });
});

describe('window policy', () => {
  it('isolates and sandboxes the renderer with no Node integration', () => {
    expect(secureWebPreferences('/x/preload.cjs')).toMatchObject({
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('has a CSP without inline or eval code and without any network origin', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|https?:|\*/);
    expect(responseHeaders('/r/index.html')).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
    // The page: one nonce'd style tag allowed, scripts still only from the app.
    const page = responseHeaders('/r/index.html', 'abc123')['content-security-policy'];
    expect(page).toContain("style-src 'self' 'nonce-abc123'");
    expect(page).toContain("script-src 'self';");
    expect(page).not.toMatch(/unsafe-/);
  });
});
