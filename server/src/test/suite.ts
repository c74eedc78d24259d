import { scratchDb, type DialectName, type ScratchDb } from './dialects.js';
import { startTestServer, type TestServer } from './harness.js';

export type SuiteServerOptions = Omit<Parameters<typeof startTestServer>[0], 'db' | 'dataDir'>;

/**
 * How long a suite's server may take to start or stop: a fresh database through every migration
 * and a server start, which on a loaded two-core machine (MariaDB especially) outlasts jest's
 * 30 s for a test.
 */
export const SUITE_SETUP_TIMEOUT_MS = 120_000;

export interface SuiteServer {
  /** The running server; read it in hooks and tests, never while the suite is being defined. */
  readonly server: TestServer;
  /** Its database and data directory. */
  readonly scratch: ScratchDb;
}

/**
 * One server on a fresh database for the enclosing `describe`: started in its `beforeAll`,
 * stopped and its database dropped in its `afterAll`, so a suite states only what it tests.
 * `options` may be a function, called in that `beforeAll` (a port to find first).
 */
export function suiteServer(
  dialect: DialectName,
  options: SuiteServerOptions | (() => Promise<SuiteServerOptions>) = {},
): SuiteServer {
  let server: TestServer | undefined;
  let scratch: ScratchDb | undefined;
  beforeAll(async () => {
    const chosen = typeof options === 'function' ? await options() : options;
    scratch = await scratchDb(dialect);
    server = await startTestServer({ ...chosen, db: scratch.db, dataDir: scratch.dataDir });
  }, SUITE_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  }, SUITE_SETUP_TIMEOUT_MS);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('the suite server starts in beforeAll: read it in a hook or a test');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get scratch() {
      return started(scratch);
    },
  };
}

/**
 * Another server on `scratch`'s database and data directory for the length of `use` (other
 * settings: an untrusted network, a proxy, a restart), stopped after it whatever happens.
 */
export async function withServer<T>(
  scratch: ScratchDb,
  options: SuiteServerOptions,
  use: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startTestServer({ ...options, db: scratch.db, dataDir: scratch.dataDir });
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}
