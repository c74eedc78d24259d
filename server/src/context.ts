import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import type { Models } from './db/models.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { JobRegistry } from './jobs/registry.js';
import type { AuditLog } from './audit/audit.js';
import type { RuntimeSettings } from './settings/runtime-settings.js';
import type { SessionService } from './auth/sessions.js';
import type { LoginThrottle } from './auth/lockout/throttle.js';
import type { Accounts } from './auth/accounts.js';
import type { CsrfTokens } from './auth/csrf.js';
import type { DeviceCookies } from './auth/lockout/device-cookie.js';
import type { HostInfo } from './discovery/address.js';
import type { NodeStore } from './discovery/node-store.js';
import type { TerminalClient } from './discovery/terminal-client.js';
import type { DiscoveryWorker } from './discovery/worker.js';
import type { PhotoStore } from './photos/store.js';
import type { DeviceClocks } from './devices/clock.js';

/**
 * The named dependencies every route and job receives. Infrastructure sits behind these
 * objects so tests can build a context around a throwaway database and a manual clock.
 */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Database;
  models: Models;
  jobs: JobRegistry;
  audit: AuditLog;
  settings: RuntimeSettings;
  sessions: SessionService;
  throttle: LoginThrottle;
  accounts: Accounts;
  /** Available once the database is ready (the secret lives in runtime settings). */
  csrf(): CsrfTokens;
  /** Signs the sign-in device cookies; available once the database is ready, like csrf(). */
  deviceCookies(): DeviceCookies;
  discovery: {
    store: NodeStore;
    client: TerminalClient;
    host: HostInfo;
    /** Absent when SVC_DISCOVERY_WORKER=0. */
    worker?: DiscoveryWorker;
  };
  photos: PhotoStore;
  /** Device clock drift, measured from heartbeats and events (a job refreshes its summary). */
  deviceClocks: DeviceClocks;
  /** Conditions an operator should fix, shown in the heartbeat. */
  warnings: string[];
  startedAt: Date;
  version: string;
}
