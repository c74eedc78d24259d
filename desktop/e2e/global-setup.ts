/**
 * Before the console's end-to-end tests: everything they start must exist. The console (CLI +
 * renderer) and web/dist are built from the current sources; svc_server and the simulator must
 * have been built by the root `npm test` (or `npm run build -w …`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { build } from 'vite';
import { serverEntry } from '../src/testing/central-process.js';
import { findNginx, webDir, webDist } from '../../web/tests/support/env';

const desktopDir = path.resolve(import.meta.dirname, '..');

export default async function globalSetup(): Promise<void> {
  const problems: string[] = [];
  if (!existsSync(serverEntry)) problems.push(`svc_server is not built (${serverEntry})`);
  if (!existsSync(path.resolve(desktopDir, '../tools/sim/dist/index.js'))) {
    problems.push('the simulator is not built: npm run build -w @svc/sim');
  }
  if (findNginx() === null) problems.push('nginx is not installed (apt-get install nginx-light)');
  if (problems.length > 0) throw new Error(problems.join('\n'));
  execFileSync('npm', ['run', 'build'], { cwd: desktopDir, stdio: 'inherit' });
  if (process.env.SVC_WEB_SKIP_BUILD !== '1' || !existsSync(webDist)) {
    await build({
      root: webDir,
      configFile: path.join(webDir, 'vite.config.ts'),
      logLevel: 'warn',
    });
  }
}
