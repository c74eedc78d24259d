import path from 'node:path';

/**
 * The renderer is served from this privileged custom scheme (not file://), so every response can
 * carry the CSP header and nothing outside the renderer directory can be read.
 */
export const APP_SCHEME = 'svc-console';
export const APP_HOST = 'app';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** The renderer talks to nothing but the preload's API: no network, no inline or eval'd code. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The BrowserWindow webPreferences: isolated, sandboxed, no Node in any renderer. */
export function secureWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  } as const;
}

/** True only for a URL of the console's own renderer (IPC sender checks, navigation). */
export function isAppUrl(url: string | null | undefined): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host === APP_HOST &&
    parsed.username === '' &&
    parsed.password === ''
  );
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The Content-Type to serve a renderer file with; null for a kind the console never serves. */
export function contentTypeFor(file: string): string | null {
  return contentTypes[path.extname(file).toLowerCase()] ?? null;
}

/**
 * Maps a request on the app scheme to a file inside `rootDir`, or null: another origin, a path
 * that would leave the directory (.., encoded slashes), or a kind of file that is not served.
 */
export function resolveAppAsset(rootDir: string, requestUrl: string): string | null {
  if (!isAppUrl(requestUrl)) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(new URL(requestUrl).pathname);
  } catch {
    return null;
  }
  if (relative.includes('\0') || relative.includes('\\')) return null;
  relative = relative.replace(/^\/+/, '');
  if (relative === '') relative = 'index.html';
  const root = path.resolve(rootDir);
  const resolved = path.resolve(root, relative);
  if (!resolved.startsWith(root + path.sep)) return null;
  return contentTypeFor(resolved) ? resolved : null;
}

/** The placeholder in index.html that each page load replaces with a fresh nonce. */
export const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/** The CSP with one nonce'd style tag allowed: Mantine's CSS variables (no inline code else). */
export function cspWithStyleNonce(nonce: string, csp = CONTENT_SECURITY_POLICY): string {
  return csp.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

/** Headers for every renderer response; the page itself gets its nonce. */
export function responseHeaders(file: string, nonce?: string): Record<string, string> {
  return {
    'content-type': contentTypeFor(file) ?? 'application/octet-stream',
    'content-security-policy': nonce ? cspWithStyleNonce(nonce) : CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
  };
}
