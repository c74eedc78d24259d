import { Writable } from 'node:stream';
import { loadConfig, type Config, type DbConfig } from '../platform/config/config.js';
import { createLogger } from '../platform/logger.js';
import { startServer, type RunningServer } from '../platform/server.js';
import type { Clock } from '../platform/clock.js';
import type { Infrastructure } from '../platform/server.js';
import { sourceFaceWorker } from './face-worker.js';

export const TEST_ADMIN_PASSWORD = `t3st-${Math.random().toString(36).slice(2)}-horse-battery`;

/** Log lines of a test server, kept in memory so tests can assert on them. */
export class LogSink extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  /** The same lines as written (for their length in bytes). */
  readonly raw: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      this.raw.push(line);
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    cb();
  }
  text(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n');
  }
}

export interface TestServer extends RunningServer {
  logs: LogSink;
  config: Config;
}

/** Starts svc_server in-process on 127.0.0.1 with an ephemeral port. */
export async function startTestServer(opts: {
  db: DbConfig;
  dataDir: string;
  env?: Record<string, string>;
  clock?: Clock;
  waitReady?: boolean;
  infra?: Infrastructure;
  siteRoot?: string;
}): Promise<TestServer> {
  const base = loadConfig({
    ADMIN_INITIAL_PASSWORD: TEST_ADMIN_PASSWORD,
    SVC_DISCOVERY_WORKER: '0',
    SVC_PUSH_WORKER: '0',
    // Most suites upload generated images without a face; the face suites turn it on.
    FACE_CHECK: 'off',
    ...opts.env,
  });
  const config: Config = {
    ...base,
    http: { host: '127.0.0.1', port: 0 },
    dataDir: opts.dataDir,
    db: opts.db,
  };
  const logs = new LogSink();
  const logger = createLogger('debug', logs);
  const server = await startServer({
    config,
    logger,
    clock: opts.clock,
    infra: { faceWorker: sourceFaceWorker, ...opts.infra },
    siteRoot: opts.siteRoot,
  });
  if (opts.waitReady !== false) await server.ready;
  return { ...server, logs, config };
}
