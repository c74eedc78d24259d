/**
 * Before any test: check that everything the real stack needs is installed and built, and build
 * web/dist from the current sources (set SVC_WEB_SKIP_BUILD=1 to test an existing dist).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { chromiumPath, findNginx, serverEntry, webDir, webDist } from './support/env';

export default async function globalSetup(): Promise<void> {
  const problems: string[] = [];
  if (findNginx() === null) {
    problems.push(
      'nginx was not found (looked for SVC_NGINX_BIN, /usr/sbin/nginx, nginx on PATH). ' +
        'Install it, e.g. `apt-get install -y nginx-light` (or nginx).',
    );
  }
  if (!existsSync(chromiumPath)) {
    problems.push(
      `Chromium was not found at ${chromiumPath}. Install it (e.g. \`apt-get install -y chromium\`) ` +
        'or set SVC_CHROMIUM_PATH.',
    );
  }
  if (!existsSync(serverEntry)) {
    problems.push(
      `svc_server is not built: ${serverEntry} does not exist. ` +
        'Run `npm run build -w @svc/shared -w @svc/server` at the repository root first.',
    );
  }
  const simEntry = path.join(webDir, '..', 'tools', 'sim', 'dist', 'index.js');
  if (!existsSync(simEntry)) {
    problems.push(
      `The simulator is not built: ${simEntry} does not exist (system.spec.ts runs simulated ` +
        'terminals). Run `npm run build -w @svc/sim` at the repository root first.',
    );
  }
  if (problems.length > 0) {
    throw new Error(`The web tests cannot run:\n- ${problems.join('\n- ')}`);
  }

  if (process.env.SVC_WEB_SKIP_BUILD === '1') {
    if (!existsSync(path.join(webDist, 'index.html'))) {
      throw new Error(`SVC_WEB_SKIP_BUILD=1 but ${webDist}/index.html does not exist.`);
    }
    return;
  }
  await build({ root: webDir, configFile: path.join(webDir, 'vite.config.ts'), logLevel: 'warn' });
}
