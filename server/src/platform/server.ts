import { WarningCode } from '@svc/shared';
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Config } from './config/config.js';
import type { Logger } from './logger.js';
import type { AppContext } from './context.js';
import { systemClock, type Clock } from './clock.js';
import { createDatabase, connectWithRetry, type Database } from './db/database.js';
import { defineModels, type Models } from './db/models.js';
import { prepareSqlite } from './db/sequelize.js';
import { keepSqliteFilesPrivate } from './db/sqlite-files.js';
import { FatalDatabaseError } from './db/errors.js';
import { JobRegistry } from './jobs/registry.js';
import { periodicJob } from './jobs/periodic.js';
import { AuditLog } from '../audit/audit.js';
import { RuntimeSettings, SettingKey } from '../settings/runtime-settings.js';
import { SessionService } from '../auth/sessions.js';
import { LoginThrottle } from '../auth/lockout/throttle.js';
import { Accounts } from '../auth/accounts.js';
import { TwoFactor } from '../auth/two-factor/service.js';
import { CsrfTokens } from '../auth/csrf.js';
import { DeviceCookies } from '../auth/lockout/device-cookie.js';
import { prepareDatabase, type InitResult } from '../bootstrap/first-start.js';
import { Phase, Shutdown } from './lifecycle.js';
import { createApp } from './app.js';
import type { Api } from './http/api.js';
import { closeHttp } from './http/close.js';
import { VERSION } from './version.js';
import { addressWarnings, realHost, type HostInfo } from '../discovery/address.js';
import { NodeList } from '../discovery/node-list.js';
import { createTerminalClient, type TerminalClient } from '../discovery/terminal-client.js';
import { createUdpTransport, type UdpTransport } from '../discovery/udp.js';
import { DiscoveryWorker } from '../discovery/worker.js';
import { createPhotoStore } from '../photos/store.js';
import { PhotoVariants } from '../photos/variants/service.js';
import { failInterruptedImports } from '../bulk/import-job.js';
import { Reconciliations } from '../sync/reconciliation/runs.js';
import { SyncWorker } from '../sync/worker/worker.js';
import { InFlight } from '../sync/delivery/inflight.js';
import { closeSyncDb, prepareSyncDb, syncDb } from '../sync/connection.js';
import { PanelDelivery } from '../recognition/panel-outbox/outbox.js';
import { LiveHub } from '../recognition/events/hub.js';
import { intakeLookups } from '../recognition/intake/lookups.js';
import { EventWriter } from '../recognition/intake/event-writer.js';
import { DeviceKeyVault } from '../devices/key-vault.js';
import { retentionJob } from '../recognition/events/retention.js';
import { DeviceClocks } from '../devices/clock.js';
import { FaceDetector } from '../photos/faces/detector.js';
import { photoWork } from '../photos/intake.js';

export interface RunningServer {
  ctx: AppContext;
  /** Every registered route (the OpenAPI document and the route-table test read it). */
  api: Api;
  /** The Express app behind the request listener (the route-table test reads its router). */
  app: Express;
  http: Server;
  /** http://host:port the server listens on. */
  url: string;
  /** Resolves once the database is connected, migrated and seeded; rejects on a fatal error. */
  ready: Promise<InitResult>;
  /** Stops in order: accepting, workers, sockets, database. */
  stop(): Promise<void>;
}

/** Infrastructure a test may replace; production uses the real ones. */
export interface Infrastructure {
  host?: HostInfo;
  terminalClient?: TerminalClient;
  createTransport?: () => UdpTransport;
  discoveryFlushEveryMs?: number;
  /**
   * Tests: the service-wide announce reply rate (default ANNOUNCE_REPLIES_PER_S), low enough
   * that a flood from the test's own process outruns it.
   */
  discoveryAnnounceRepliesPerS?: number;
  /** The face model worker's script (tests run it from source; default: the built one). */
  faceWorker?: () => Promise<URL>;
}

export interface StartOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  infra?: Infrastructure;
  /** Passed to createApp: the built site served at `/` (main.ts: `web/dist` when built). */
  siteRoot?: string;
}

export interface BuiltContext {
  ctx: AppContext;
  /** Loads what lives in the database (the CSRF secret) once it is migrated. */
  loadSecrets: () => Promise<void>;
}

/** Builds the context around the configuration. Nothing touches the database yet. */
export function buildContext(
  config: Config,
  logger: Logger,
  clock: Clock,
  infra: Infrastructure = {},
): BuiltContext {
  const db = createDatabase(config.db, logger);
  const models = defineModels(db.sequelize);
  const accounts = accountServices(config, db, models, clock);
  const secrets = secretsFromDatabase(accounts.settings);
  const photos = createPhotoStore({
    dataDir: config.dataDir,
    sequelize: db.sequelize,
    models,
    clock,
    logger,
  });
  const ctx: AppContext = {
    config,
    logger,
    clock,
    db,
    models,
    jobs: new JobRegistry(logger),
    ...accounts,
    csrf: secrets.csrf,
    deviceCookies: secrets.deviceCookies,
    discovery: {
      store: new NodeList({
        sequelize: db.sequelize,
        models,
        clock,
        timeoutS: config.discovery.timeoutS,
        maxNodes: config.discovery.maxNodes,
      }),
      client: infra.terminalClient ?? createTerminalClient(),
      host: infra.host ?? realHost,
    },
    photos,
    photoVariants: new PhotoVariants({ sequelize: db.sequelize, photos, clock, logger }),
    faces: new FaceDetector({
      logger,
      ...(infra.faceWorker && { workerUrl: infra.faceWorker }),
    }),
    photoWork: photoWork(config.db.dialect, config.faces.queue, logger),
    deviceClocks: new DeviceClocks({ models, clock, logger }),
    live: new LiveHub(),
    recognition: {
      lookups: intakeLookups({ db, settings: accounts.settings }),
      writer: new EventWriter({ db, photos }),
    },
    sync: {
      db: syncDb(config, db, models),
      inFlight: new InFlight(),
      reconciliations: new Reconciliations(),
    },
    warnings: [],
    startedAt: new Date(),
    version: VERSION,
  };
  registerJobs(ctx, infra);
  ctx.warnings.push(
    ...addressWarnings({ ...config.discovery, webPort: config.webPort }).map((w) => {
      logger.warn(w.message);
      return w;
    }),
  );
  return { ctx, loadSecrets: secrets.load };
}

/** Accounts and what guards them: audit, settings, sessions, sign-in limits, keys, 2FA. */
function accountServices(config: Config, db: Database, models: Models, clock: Clock) {
  const audit = new AuditLog({ models, clock });
  const settings = new RuntimeSettings({ models, clock });
  const sessions = new SessionService({ models, clock });
  const throttle = new LoginThrottle({ sequelize: db.sequelize, models, clock });
  const deviceKeys = new DeviceKeyVault({
    models,
    clock,
    dataDir: config.dataDir,
    secretFile: config.deviceKeySecretFile,
  });
  const twoFactor = new TwoFactor({
    sequelize: db.sequelize,
    models,
    clock,
    audit,
    sessions,
    vault: deviceKeys,
    settings,
  });
  const accounts = new Accounts({
    sequelize: db.sequelize,
    models,
    clock,
    audit,
    sessions,
    throttle,
    twoFactor,
    dataDir: config.dataDir,
  });
  return { audit, settings, sessions, throttle, deviceKeys, twoFactor, accounts };
}

/** The keys kept in the database (CSRF, device cookies): there once it is migrated. */
function secretsFromDatabase(settings: RuntimeSettings) {
  let csrf: CsrfTokens | undefined;
  let deviceCookies: DeviceCookies | undefined;
  return {
    csrf: () => {
      if (!csrf) throw new Error('CSRF secret not loaded: the database is not ready');
      return csrf;
    },
    deviceCookies: () => {
      if (!deviceCookies)
        throw new Error('Device cookie key not loaded: the database is not ready');
      return deviceCookies;
    },
    load: async () => {
      const secret = await settings.get(SettingKey.csrfSecret, z.string());
      if (!secret) throw new Error('CSRF secret missing from runtime settings');
      csrf = new CsrfTokens(Buffer.from(secret, 'base64'));
      // A key of its own, derived from the same secret: a CSRF token is never a device cookie.
      deviceCookies = new DeviceCookies(
        createHmac('sha256', Buffer.from(secret, 'base64')).update('svc device cookies').digest(),
      );
    },
  };
}

/** Every background job, in start order (stopped in reverse: jobs/registry.ts). */
function registerJobs(ctx: AppContext, infra: Infrastructure): void {
  const { config, logger, clock } = ctx;
  ctx.jobs.register(
    periodicJob({
      name: 'session-cleanup',
      everyMs: 10 * 60_000,
      logger,
      run: async () => {
        const sessionsPurged = await ctx.sessions.purgeExpired();
        const failuresPurged = await ctx.throttle.purgeOld();
        logger.debug({ sessionsPurged, failuresPurged }, 'session cleanup');
      },
    }),
  );
  ctx.jobs.register(
    periodicJob({
      name: 'file-cleanup',
      everyMs: 60 * 60_000,
      logger,
      run: () => ctx.photos.sweepOrphans(),
    }),
  );
  ctx.jobs.register({
    name: 'imports',
    // Imports run inside this process; one that was running when it stopped is closed here.
    start: async () => {
      const interrupted = await failInterruptedImports(ctx);
      if (interrupted > 0)
        logger.warn({ interrupted }, 'imports interrupted by the last stop marked failed');
    },
    stop: () => undefined,
  });
  ctx.jobs.register(ctx.faces, config.faces.check);
  ctx.jobs.register(ctx.deviceClocks);
  ctx.recognition.delivery = new PanelDelivery(ctx);
  ctx.jobs.register(ctx.recognition.delivery);
  ctx.jobs.register(retentionJob(ctx));
  const syncWorker = new SyncWorker(ctx);
  ctx.jobs.register(syncWorker, config.push.enabled);
  if (config.push.enabled) ctx.sync.worker = syncWorker;
  // After the worker, so stopped before it: a reconciliation the worker's periodic pass joined
  // ends here rather than being waited for.
  ctx.jobs.register(ctx.sync.reconciliations);
  if (config.discovery.enabled) {
    const worker = new DiscoveryWorker({
      config: { ...config.discovery, webPort: config.webPort },
      clock,
      logger,
      store: ctx.discovery.store,
      audit: ctx.audit,
      host: ctx.discovery.host,
      createTransport: infra.createTransport ?? createUdpTransport,
      flushEveryMs: infra.discoveryFlushEveryMs,
      announceRepliesPerS: infra.discoveryAnnounceRepliesPerS,
    });
    ctx.discovery.worker = worker;
    ctx.jobs.register(worker);
  }
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { config, logger } = opts;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  if (config.db.dialect === 'sqlite') await keepSqliteFilesPrivate(config.db.storage);
  const { ctx, loadSecrets } = buildContext(config, logger, opts.clock ?? systemClock, opts.infra);
  if (config.db.dialect === 'mysql' && config.db.password === '') {
    ctx.warnings.push({
      code: WarningCode.databaseNoPassword,
      params: {},
      message: 'DB_PASSWORD and DB_ROOT_PASSWORD are empty: the database has no password',
    });
  }

  const { app, api, listener } = createApp(ctx, { siteRoot: opts.siteRoot });
  const http = createServer(listener);
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.http.port, config.http.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
  logger.info({ url, dialect: config.db.dialect, dataDir: config.dataDir }, 'listening');

  const connecting = new AbortController();
  const shutdown = new Shutdown(logger);
  shutdown.add(Phase.stopAccepting, 'http', () => closeHttp(http));
  shutdown.add(Phase.stopWorkers, 'jobs', () => ctx.jobs.stopAll());
  shutdown.add(Phase.closeSockets, 'udp', async () => {
    await ctx.discovery.worker?.closeSocket();
  });
  shutdown.add(Phase.closeDatabase, 'database', async () => {
    connecting.abort();
    await closeSyncDb(ctx.sync.db);
    await ctx.db.close();
  });

  const ready = (async () => {
    await connectWithRetry({
      db: config.db,
      sequelize: ctx.db.sequelize,
      logger,
      signal: connecting.signal,
    });
    if (config.db.dialect === 'sqlite') {
      await prepareSqlite(ctx.db.sequelize, { wal: true });
      await prepareSyncDb(ctx.sync.db);
    }
    const result = await prepareDatabase({
      config,
      db: ctx.db,
      models: ctx.models,
      settings: ctx.settings,
      audit: ctx.audit,
      clock: ctx.clock,
      logger,
      version: ctx.version,
    });
    await loadSecrets();
    ctx.db.markReady();
    await ctx.jobs.startAll();
    logger.info({ migrations: result.migrationsApplied.length, seeded: result.seeded }, 'ready');
    return result;
  })();
  // The caller observes `ready`; this keeps an early shutdown from surfacing as unhandled.
  ready.catch(() => undefined);

  return { ctx, api, app, http, url, ready, stop: () => shutdown.run() };
}

export { FatalDatabaseError };
