import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Response } from 'express';

/**
 * The management site's security headers: the same as `web/nginx.conf.template`'s `location /`
 * (site.test.ts compares the two), so the site behaves alike behind nginx and from `npm start`.
 * `style-src 'unsafe-inline'`: Mantine sets inline styles and CSS variables.
 */
export const SITE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Vite's content-hashed files never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** `web/dist` of this checkout (server/dist/platform/http → ../../../../web/dist; the same from src/platform/http). */
export function defaultSiteRoot(): string | undefined {
  const root = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));
  return existsSync(join(root, 'index.html')) ? root : undefined;
}

function secure(res: Response, cacheControl: string): void {
  for (const [name, value] of Object.entries(SITE_HEADERS)) res.setHeader(name, value);
  res.setHeader('Cache-Control', cacheControl);
}

/**
 * Serves the built site beside `/api` (what nginx does in the containers): existing files,
 * any other GET/HEAD path outside `/api` and `/assets` answers `index.html` (deep links such as
 * `/people`); a missing `/assets/...` file falls through to the JSON 404.
 */
export function siteHandler(root: string): RequestHandler {
  const files = express.static(root, {
    index: false,
    redirect: false,
    cacheControl: false,
    fallthrough: true,
    setHeaders: (res, path) => {
      secure(res, path.startsWith(join(root, 'assets')) ? IMMUTABLE : 'no-cache');
    },
  });
  const index = join(root, 'index.html');
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || /^\/api(\/|$)/.test(req.path)) {
      next();
      return;
    }
    files(req, res, () => {
      if (req.path.startsWith('/assets/')) {
        next();
        return;
      }
      secure(res, 'no-cache');
      res.sendFile(index, { cacheControl: false }, (err) => {
        if (err) next(err);
      });
    });
  };
}
