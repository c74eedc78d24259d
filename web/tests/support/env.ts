/** Where the pieces of the real stack are; each can be overridden from the environment. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const webDir = fileURLToPath(new URL('../..', import.meta.url));
export const repoRoot = path.resolve(webDir, '..');
export const webDist = path.join(webDir, 'dist');
export const nginxTemplate = path.join(webDir, 'nginx.conf.template');

/** The svc_server entry point built by `npm run build -w @svc/shared -w @svc/server`. */
export const serverEntry =
  process.env.SVC_SERVER_ENTRY ?? path.join(repoRoot, 'server', 'dist', 'platform', 'main.js');

export const chromiumPath = process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium';

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** `SVC_NGINX_BIN`, else /usr/sbin/nginx, else `nginx` on PATH; `null` when there is none. */
export function findNginx(): string | null {
  const fromEnv = process.env.SVC_NGINX_BIN;
  if (fromEnv !== undefined && fromEnv !== '') return existsSync(fromEnv) ? fromEnv : null;
  for (const candidate of [
    '/usr/sbin/nginx',
    '/usr/local/sbin/nginx',
    '/usr/local/nginx/sbin/nginx',
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return findOnPath('nginx');
}

/** Keep each worker's temp dir (data, logs, rendered nginx config) after the run. */
export const keepRunDirs = process.env.SVC_TEST_KEEP === '1';
