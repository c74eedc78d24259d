import {
  DEFAULT_DB_DATABASE,
  DEFAULT_DB_PORT,
  DEFAULT_DISCOVERY_PORT,
  DEFAULT_DISCOVERY_TIMEOUT_S,
  DEFAULT_HEARTBEAT_TIMEOUT_S,
  DEFAULT_HTTP_PORT,
  DEFAULT_PUSH_INTERVAL_S,
  DEFAULT_WEB_PORT,
  PASSWORD_MIN_LENGTH,
  centralUrl,
  optionalStoredHttpUrl,
} from '@svc/shared';
import {
  ConfigError,
  cidrList,
  count,
  directory,
  flag,
  host,
  hostList,
  oneOf,
  port,
  secret,
  secretFile,
  seconds,
  text,
  url,
  type VarSpec,
} from './vars.js';

/** A face this high fills ~1/8 of a 1024 px portrait: enough for the common device models. */
const DEFAULT_FACE_MIN_PX = 80;

const PRIVATE_AND_LOOPBACK = [
  '127.0.0.0/8',
  '::1/128',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  'fc00::/7',
];
/** Far above the terminals of any site, far below what would weigh on the process. */
const DEFAULT_DISCOVERY_MAX_NODES = 10_000;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every variable the server reads, in the order of the README's table. */
export const VARS = {
  DB_ROOT_PASSWORD: secret({
    name: 'DB_ROOT_PASSWORD',
    type: 'secret string',
    default: 'none; required by the database container on first start',
    purpose:
      'Database root password. Must match the existing data when a volume is reused. The server uses it when `DB_PASSWORD` is unset',
  }),
  DB_DATABASE: text(
    {
      name: 'DB_DATABASE',
      type: 'string',
      default: DEFAULT_DB_DATABASE,
      purpose: 'Database name (MySQL/MariaDB)',
    },
    DEFAULT_DB_DATABASE,
    'must be 1 to 64 letters, digits or underscores',
    /^[A-Za-z0-9_]{1,64}$/,
  ),
  WEB_PORT: port(
    {
      name: 'WEB_PORT',
      type: 'port',
      default: String(DEFAULT_WEB_PORT),
      purpose: 'Web host port; part of the central address advertised to terminals',
    },
    DEFAULT_WEB_PORT,
  ),
  DB_HOST: hostList({
    name: 'DB_HOST',
    type: 'host, or list `host1:port,host2:port`',
    default: 'unset: embedded SQLite in `DATA_DIR`',
    purpose:
      'MySQL/MariaDB host; when set the server uses the MySQL dialect. A list names the nodes of a Galera cluster, tried in order: the server uses the first that answers and is `Synced`, and moves to the next when it fails. A node without `:port` uses `DB_PORT`',
  }),
  DB_PORT: port(
    {
      name: 'DB_PORT',
      type: 'port',
      default: String(DEFAULT_DB_PORT),
      purpose: 'Database port (the compose file binds it to 127.0.0.1 only)',
    },
    DEFAULT_DB_PORT,
  ),
  DB_USER: text(
    { name: 'DB_USER', type: 'string', default: 'root', purpose: 'Database user' },
    'root',
    'must be 1 to 80 printable characters',
    /^[\x21-\x7e]{1,80}$/,
  ),
  DB_PASSWORD: secret({
    name: 'DB_PASSWORD',
    type: 'secret string',
    default: '`DB_ROOT_PASSWORD`',
    purpose: 'Database password of `DB_USER`',
  }),
  DISCOVERY_HOST: host({
    name: 'DISCOVERY_HOST',
    type: 'host address',
    default: 'auto-detected',
    purpose:
      'Central host address reachable by terminals; never a container-only or loopback address',
  }),
  DISCOVERY_HTTP_BASE_URL: url(
    {
      name: 'DISCOVERY_HTTP_BASE_URL',
      type: 'URL',
      default: 'derived from `DISCOVERY_HOST` and `WEB_PORT`',
      purpose: 'Full central URL advertised to terminals, `http://<host>:<web_port>`',
    },
    centralUrl,
    'must be http://<host>[:<port>] with no path',
  ),
  DISCOVERY_PORT: port(
    {
      name: 'DISCOVERY_PORT',
      type: 'UDP port',
      default: String(DEFAULT_DISCOVERY_PORT),
      purpose: 'LAN discovery port',
    },
    DEFAULT_DISCOVERY_PORT,
  ),
  DISCOVERY_TIMEOUT: seconds(
    {
      name: 'DISCOVERY_TIMEOUT',
      type: 'seconds',
      default: String(DEFAULT_DISCOVERY_TIMEOUT_S),
      purpose: 'A node with no new broadcast for longer than this is offline',
    },
    DEFAULT_DISCOVERY_TIMEOUT_S,
  ),
  DISCOVERY_MAX_NODES: count(
    {
      name: 'DISCOVERY_MAX_NODES',
      type: 'count',
      default: String(DEFAULT_DISCOVERY_MAX_NODES),
      purpose:
        'Most discovered nodes kept; announces of new ids beyond it are dropped (counted as `node_limit`)',
    },
    DEFAULT_DISCOVERY_MAX_NODES,
    1,
    1_000_000,
  ),
  SVC_PUSH_WORKER: flag(
    {
      name: 'SVC_PUSH_WORKER',
      type: 'flag',
      default: '1',
      purpose: 'Start the person synchronization worker',
    },
    true,
  ),
  SVC_PUSH_INTERVAL: seconds(
    {
      name: 'SVC_PUSH_INTERVAL',
      type: 'seconds',
      default: String(DEFAULT_PUSH_INTERVAL_S),
      purpose:
        'How often an idle sync worker looks for work (a change through the API starts it at once)',
    },
    DEFAULT_PUSH_INTERVAL_S,
    3600,
  ),
  FACE_CHECK: flag(
    {
      name: 'FACE_CHECK',
      type: 'flag',
      default: 'on',
      purpose:
        'Check every photo provided (upload, enrollment terminal, import) for one usable face; the model loads in the background at start',
    },
    true,
  ),
  FACE_MIN_PX: count(
    {
      name: 'FACE_MIN_PX',
      type: 'pixels',
      default: String(DEFAULT_FACE_MIN_PX),
      purpose:
        "Smallest face height accepted when no device that receives the person asks for more (a device's `minFacePx`)",
    },
    DEFAULT_FACE_MIN_PX,
    16,
    1024,
  ),
  FACE_CHECK_QUEUE: count(
    {
      name: 'FACE_CHECK_QUEUE',
      type: 'count',
      default: '8',
      purpose:
        'Most photos (uploads and enrollment terminals) read, decoded and face-checked at once or waiting for it; more are refused at once with 503 and `Retry-After`',
    },
    8,
    1,
    1000,
  ),
  SVC_DISCOVERY_WORKER: flag(
    {
      name: 'SVC_DISCOVERY_WORKER',
      type: 'flag',
      default: '1',
      purpose: 'Start the discovery worker',
    },
    true,
  ),
  SVC_IMPORT_HOLD_FILE: text(
    {
      name: 'SVC_IMPORT_HOLD_FILE',
      type: 'path',
      default: 'empty',
      purpose:
        'Tests and demonstrations only: while this file exists, a running people import waits before its next row',
    },
    '',
  ),
  PANEL_URL: url(
    {
      name: 'PANEL_URL',
      type: 'URL',
      default: 'empty',
      purpose: 'Default panel (display) address; seeds the saved panel route on first start only',
    },
    optionalStoredHttpUrl,
    'must be an http:// or https:// URL without user:password@',
  ),
  HEARTBEAT_TIMEOUT: seconds(
    {
      name: 'HEARTBEAT_TIMEOUT',
      type: 'seconds',
      default: String(DEFAULT_HEARTBEAT_TIMEOUT_S),
      purpose: 'Heartbeat offline threshold of recognition devices',
    },
    DEFAULT_HEARTBEAT_TIMEOUT_S,
  ),
  HTTP_HOST: host({
    name: 'HTTP_HOST',
    type: 'host address',
    default: '0.0.0.0',
    purpose: 'Address the HTTP server listens on',
  }),
  HTTP_PORT: port(
    {
      name: 'HTTP_PORT',
      type: 'port',
      default: String(DEFAULT_HTTP_PORT),
      purpose: 'HTTP port of svc_server',
    },
    DEFAULT_HTTP_PORT,
  ),
  DATA_DIR: directory(
    {
      name: 'DATA_DIR',
      type: 'directory',
      default: '`./data`',
      purpose:
        'SQLite file, photos and other files, the initial password file (created with mode 0700)',
    },
    './data',
  ),
  DEVICE_KEY_SECRET_FILE: secretFile({
    name: 'DEVICE_KEY_SECRET_FILE',
    type: 'file path',
    default: 'unset: `device-key-secret` in `DATA_DIR`, created on first use',
    purpose:
      'File holding the 32-byte base64 secret that seals the device keys (e.g. from a secret manager); every server process of one database must use the same secret',
  }),
  TRUSTED_NETWORKS: cidrList(
    {
      name: 'TRUSTED_NETWORKS',
      type: 'CIDR list',
      default: 'loopback and private ranges',
      purpose:
        'Clients allowed to read discovery nodes and online count without a session, and to configure terminals',
    },
    PRIVATE_AND_LOOPBACK,
  ),
  TRUSTED_PROXIES: cidrList(
    {
      name: 'TRUSTED_PROXIES',
      type: 'CIDR list',
      default: '`127.0.0.0/8,::1/128`',
      purpose:
        'Reverse proxies (svc_web) whose `X-Forwarded-For`/`X-Forwarded-Proto` are believed; nobody else’s are',
    },
    ['127.0.0.0/8', '::1/128'],
  ),
  ADMIN_INITIAL_PASSWORD: secret({
    name: 'ADMIN_INITIAL_PASSWORD',
    type: 'secret string',
    default: 'unset: a random password written to a 0600 file in `DATA_DIR`',
    purpose: `Password of the seeded \`admin\` on first start only (at least ${PASSWORD_MIN_LENGTH} characters); ignored afterwards`,
  }),
  LOG_LEVEL: oneOf(
    {
      name: 'LOG_LEVEL',
      type: LOG_LEVELS.join(' / '),
      default: 'info',
      purpose: 'Log verbosity (logs never contain passwords, tokens, cookies or photos)',
    },
    LOG_LEVELS,
    'info',
  ),
} satisfies Record<string, VarSpec<unknown>>;

export type DbConfig =
  | { dialect: 'sqlite'; storage: string }
  | {
      dialect: 'mysql';
      /** The first node. */
      host: string;
      port: number;
      /** Every node of a cluster, in the order tried (db/nodes.ts); absent for one server. */
      nodes?: { host: string; port: number }[];
      database: string;
      user: string;
      password: string;
    };

export interface Config {
  http: { host: string; port: number };
  dataDir: string;
  /** The device key secret's file when it is not the one in DATA_DIR. */
  deviceKeySecretFile: string | undefined;
  db: DbConfig;
  webPort: number;
  discovery: {
    enabled: boolean;
    host: string;
    httpBaseUrl: string;
    port: number;
    timeoutS: number;
    maxNodes: number;
  };
  push: { enabled: boolean; intervalS: number };
  faces: { check: boolean; minFacePx: number; queue: number };
  panelUrl: string;
  heartbeatTimeoutS: number;
  trustedNetworks: string[];
  trustedProxies: string[];
  adminInitialPassword: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** SVC_IMPORT_HOLD_FILE, or '' (never held). */
  importHoldFile: string;
}

type Env = Record<string, string | undefined>;
type Parsed = { [K in keyof typeof VARS]: ReturnType<(typeof VARS)[K]['parse']> };

/** Parses the whole environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const v = {} as Record<string, unknown>;
  for (const [name, spec] of Object.entries(VARS)) v[name] = spec.parse(env[name]);
  const p = v as Parsed;

  if (
    p.ADMIN_INITIAL_PASSWORD !== undefined &&
    p.ADMIN_INITIAL_PASSWORD.length < PASSWORD_MIN_LENGTH
  ) {
    throw new ConfigError(
      'ADMIN_INITIAL_PASSWORD',
      `must be at least ${PASSWORD_MIN_LENGTH} characters`,
    );
  }

  const nodes = p.DB_HOST.map((n) => ({ host: n.host, port: n.port ?? p.DB_PORT }));
  const db: DbConfig = nodes[0]
    ? {
        dialect: 'mysql',
        host: nodes[0].host,
        port: nodes[0].port,
        ...(nodes.length > 1 && { nodes }),
        database: p.DB_DATABASE,
        user: p.DB_USER,
        password: p.DB_PASSWORD ?? p.DB_ROOT_PASSWORD ?? '',
      }
    : { dialect: 'sqlite', storage: `${p.DATA_DIR}/svc.sqlite` };

  return {
    http: { host: p.HTTP_HOST || '0.0.0.0', port: p.HTTP_PORT },
    dataDir: p.DATA_DIR,
    deviceKeySecretFile: p.DEVICE_KEY_SECRET_FILE,
    db,
    webPort: p.WEB_PORT,
    discovery: {
      enabled: p.SVC_DISCOVERY_WORKER,
      host: p.DISCOVERY_HOST,
      httpBaseUrl: p.DISCOVERY_HTTP_BASE_URL,
      port: p.DISCOVERY_PORT,
      timeoutS: p.DISCOVERY_TIMEOUT,
      maxNodes: p.DISCOVERY_MAX_NODES,
    },
    push: { enabled: p.SVC_PUSH_WORKER, intervalS: p.SVC_PUSH_INTERVAL },
    faces: { check: p.FACE_CHECK, minFacePx: p.FACE_MIN_PX, queue: p.FACE_CHECK_QUEUE },
    panelUrl: p.PANEL_URL,
    heartbeatTimeoutS: p.HEARTBEAT_TIMEOUT,
    trustedNetworks: p.TRUSTED_NETWORKS,
    trustedProxies: p.TRUSTED_PROXIES,
    adminInitialPassword: p.ADMIN_INITIAL_PASSWORD,
    logLevel: p.LOG_LEVEL,
    importHoldFile: p.SVC_IMPORT_HOLD_FILE,
  };
}

/** The README's configuration table, rendered from VARS. */
export function renderConfigTable(): string {
  const rows = Object.values(VARS).map(
    (s: VarSpec<unknown>) => `| \`${s.name}\` | ${s.type} | ${s.default} | ${s.purpose} |`,
  );
  return ['| Variable | Type / unit | Default | Purpose |', '|---|---|---|---|', ...rows].join(
    '\n',
  );
}

export { ConfigError };
