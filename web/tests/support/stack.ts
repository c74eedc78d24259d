/**
 * The real stack under test: svc_server (server/dist/platform/main.js) and nginx running
 * web/nginx.conf.template rendered for this worker's ports, serving web/dist.
 */
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { heartbeatResponse, SERVICE_NAME } from '@svc/shared';
import { nginxTemplate, repoRoot, serverEntry, webDir, webDist } from './env';
import { freePort, startProcess, waitUntilReady, type ManagedProcess } from './processes';

const LETTERS = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const SYMBOLS = '-_.!+';

/**
 * Words the server refuses inside a password (auth/passwords.ts: the username, the service
 * name). A random one holds one of them now and then, and the test then failed at random.
 */
const REFUSED_WORDS = [SERVICE_NAME, 'admin'];

/**
 * A random password with lower and upper case letters, digits and a symbol, and none of the
 * words the server refuses.
 */
export function generatePassword(length: number): string {
  const all = LETTERS + DIGITS + SYMBOLS;
  for (;;) {
    let password = '';
    for (let i = 0; i < length; i++) password += all[randomInt(all.length)];
    if (
      /[a-z]/.test(password) &&
      /[A-Z]/.test(password) &&
      /[0-9]/.test(password) &&
      /[-_.!+]/.test(password) &&
      !REFUSED_WORDS.some((word) => password.toLowerCase().includes(word))
    ) {
      return password;
    }
  }
}

// ---- svc_server ----

export interface RunningServer {
  url: string;
  adminPassword: string;
  process: ManagedProcess;
}

/** `env` adds to (or overrides) the test defaults, e.g. `SVC_PUSH_WORKER: '1'`. */
export async function startServer(
  runDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningServer> {
  const dataDir = path.join(runDir, 'server-data');
  mkdirSync(dataDir, { recursive: true });
  const adminPassword = generatePassword(20);
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = startProcess('svc_server', process.execPath, [serverEntry], {
      cwd: repoRoot,
      logFile: path.join(runDir, 'server.log'),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        LANG: process.env.LANG,
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: String(port),
        DATA_DIR: dataDir,
        ADMIN_INITIAL_PASSWORD: adminPassword,
        SVC_DISCOVERY_WORKER: '0',
        SVC_PUSH_WORKER: '0',
        // The pages' tests upload generated pictures without a face (issue 26's check is
        // covered by the server's face suites).
        FACE_CHECK: 'off',
        LOG_LEVEL: 'warn',
        TRUSTED_PROXIES: '127.0.0.1/32',
        ...env,
      },
    });
    try {
      await waitUntilReady(
        `svc_server on ${url}`,
        async () => {
          const response = await fetch(`${url}/api/heartbeat`, {
            signal: AbortSignal.timeout(2_000),
          });
          const parsed = heartbeatResponse.safeParse(await response.json());
          return parsed.success && parsed.data.state === 1;
        },
        proc,
        60_000,
      );
      return { url, adminPassword, process: proc };
    } catch (error) {
      lastError = error;
      await proc.stop();
      // A port taken between freePort() and the bind is worth another try; anything else is not.
      if (!/EADDRINUSE/.test(proc.tail(200))) break;
    }
  }
  throw lastError;
}

// ---- nginx ----

export interface RunningNginx {
  url: string;
  /** https://127.0.0.1:port when started with `tls`. */
  httpsURL?: string;
  process: ManagedProcess;
}

/**
 * Does what the official image's entrypoint does with /etc/nginx/templates: replaces `${NAME}`
 * for the given names only, leaving nginx's own `$variables` alone.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const rendered = template.replace(/\$\{([A-Z0-9_]+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? whole) : whole,
  );
  const left = rendered.match(/\$\{[A-Z0-9_]+\}/g);
  if (left !== null) throw new Error(`nginx template variables not set: ${left.join(', ')}`);
  return rendered;
}

/** mime.types next to nginx's compiled-in nginx.conf (what `include mime.types` means there). */
function mimeTypesPath(nginxBin: string): string {
  // `nginx -V` prints its build options on stderr.
  const { stdout, stderr } = spawnSync(nginxBin, ['-V'], { encoding: 'utf8' });
  const details = `${stdout}${stderr}`;
  const confPath = /--conf-path=(\S+)/.exec(details)?.[1] ?? '/etc/nginx/nginx.conf';
  const candidate = path.join(path.dirname(confPath), 'mime.types');
  if (!existsSync(candidate)) {
    throw new Error(`nginx's mime.types was not found at ${candidate}`);
  }
  return candidate;
}

export interface NginxOptions {
  nginxBin: string;
  runDir: string;
  /** host:port of the upstream for /api/ (svc_server, or a test double). */
  upstream: string;
  webRoot?: string;
  /** A certificate and key: HTTPS as in the image (web/docker-entrypoint.d/17-svc-tls.sh). */
  tls?: { cert: string; key: string };
  /** The address nginx listens on: loopback unless a test needs the site on a LAN address. */
  host?: string;
}

/** The image's HTTPS step: the real script writes (or removes) the snippet in `tlsDir`. */
function prepareTls(
  tlsDir: string,
  listen: string,
  httpsListen: string,
  tls?: NginxOptions['tls'],
) {
  mkdirSync(tlsDir, { recursive: true });
  const script = path.join(webDir, 'docker-entrypoint.d', '17-svc-tls.sh');
  const result = spawnSync('sh', [script], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      SVC_WEB_TLS_DIR: tlsDir,
      SVC_WEB_TLS_CERT: tls?.cert ?? '/dev/null',
      SVC_WEB_TLS_KEY: tls?.key ?? '/dev/null',
      SVC_WEB_LISTEN: listen,
      SVC_WEB_HTTPS_LISTEN: httpsListen,
    },
  });
  if (result.status !== 0) throw new Error(`17-svc-tls.sh failed: ${result.stderr}`);
}

export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const { nginxBin, runDir, upstream, host = '127.0.0.1' } = options;
  const webRoot = options.webRoot ?? webDist;
  const prefix = path.join(runDir, 'nginx');
  mkdirSync(path.join(prefix, 'temp'), { recursive: true, mode: 0o755 });
  const mimeTypes = mimeTypesPath(nginxBin);
  const template = readFileSync(nginxTemplate, 'utf8');

  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const url = `http://${host}:${port}`;
    const httpsPort = options.tls ? await freePort() : undefined;
    const tlsDir = path.join(prefix, 'tls.d');
    prepareTls(tlsDir, `${host}:${port}`, `${host}:${httpsPort ?? 0}`, options.tls);
    const site = renderTemplate(template, {
      SVC_WEB_LISTEN: `${host}:${port}`,
      SVC_SERVER_UPSTREAM: upstream,
      SVC_WEB_ROOT: webRoot,
      SVC_WEB_TLS_DIR: tlsDir,
      // The routes kept on HTTP under HTTPS, generated from the server's route table.
      SVC_WEB_HTTP_KEPT: path.join(webDir, 'nginx-http-kept.map'),
      // Never asked: the upstream is an IP address.
      NGINX_LOCAL_RESOLVERS: '127.0.0.1',
    });
    writeFileSync(path.join(prefix, 'default.conf'), site);
    // The official image's nginx.conf, reduced to what the site needs, with paths in the run dir.
    writeFileSync(
      path.join(prefix, 'nginx.conf'),
      [
        'daemon off;',
        'master_process on;',
        'worker_processes 1;',
        // Under root the default user (nobody) may lack a group of that name; run as root then.
        process.getuid?.() === 0 ? 'user root root;' : '',
        `pid ${path.join(prefix, 'nginx.pid')};`,
        'error_log stderr warn;',
        'events { worker_connections 256; }',
        'http {',
        `  include ${mimeTypes};`,
        '  default_type application/octet-stream;',
        '  access_log off;',
        '  sendfile on;',
        '  keepalive_timeout 65;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `  ${kind}_temp_path ${path.join(prefix, 'temp', kind)};`,
        ),
        `  include ${path.join(prefix, 'default.conf')};`,
        '}',
        '',
      ].join('\n'),
    );
    const proc = startProcess(
      'nginx',
      nginxBin,
      ['-e', 'stderr', '-p', `${prefix}/`, '-c', path.join(prefix, 'nginx.conf')],
      { cwd: prefix, env: { PATH: process.env.PATH }, logFile: path.join(runDir, 'nginx.log') },
    );
    try {
      await waitUntilReady(
        `nginx on ${url}`,
        async () => {
          const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
          return response.status === 200;
        },
        proc,
        20_000,
      );
      return {
        url,
        ...(httpsPort !== undefined && { httpsURL: `https://127.0.0.1:${httpsPort}` }),
        process: proc,
      };
    } catch (error) {
      lastError = error;
      await proc.stop();
      if (!/Address already in use/.test(proc.tail(200))) break;
    }
  }
  throw lastError;
}
