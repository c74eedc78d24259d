import type { ServiceWarning } from '@svc/shared';
import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import type { Models } from './db/models.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { JobRegistry } from './jobs/registry.js';
import type { AuditLog } from '../audit/audit.js';
import type { RuntimeSettings } from '../settings/runtime-settings.js';
import type { SessionService } from '../auth/sessions.js';
import type { LoginThrottle } from '../auth/lockout/throttle.js';
import type { Accounts } from '../auth/accounts.js';
import type { TwoFactor } from '../auth/two-factor/service.js';
import type { CsrfTokens } from '../auth/csrf.js';
import type { DeviceCookies } from '../auth/lockout/device-cookie.js';
import type { HostInfo } from '../discovery/address.js';
import type { NodeList } from '../discovery/node-list.js';
import type { TerminalClient } from '../discovery/terminal-client.js';
import type { DiscoveryWorker } from '../discovery/worker.js';
import type { PhotoStore } from '../photos/store.js';
import type { PhotoVariants } from '../photos/variants/service.js';
import type { FaceDetector } from '../photos/faces/detector.js';
import type { PhotoWork } from '../photos/intake.js';
import type { DeviceClocks } from '../devices/clock.js';
import type { LiveHub } from '../recognition/events/hub.js';
import type { IntakeLookups } from '../recognition/intake/lookups.js';
import type { EventWriter } from '../recognition/intake/event-writer.js';
import type { PanelDelivery } from '../recognition/panel-outbox/outbox.js';
import type { DeviceKeyVault } from '../devices/key-vault.js';
import type { SyncDb } from '../sync/connection.js';
import type { InFlight } from '../sync/delivery/inflight.js';
import type { Reconciliations } from '../sync/reconciliation/runs.js';
import type { SyncWorker } from '../sync/worker/worker.js';

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
  twoFactor: TwoFactor;
  /** Available once the database is ready (the secret lives in runtime settings). */
  csrf(): CsrfTokens;
  /** Signs the sign-in device cookies; available once the database is ready, like csrf(). */
  deviceCookies(): DeviceCookies;
  discovery: {
    store: NodeList;
    client: TerminalClient;
    host: HostInfo;
    /** Absent when SVC_DISCOVERY_WORKER=0. */
    worker?: DiscoveryWorker;
  };
  photos: PhotoStore;
  /** What each device is sent of a photo, by its profile (made once, kept). */
  photoVariants: PhotoVariants;
  /** The face model (a worker thread, loaded in the background when FACE_CHECK is on). */
  faces: FaceDetector;
  /** The bounded queues of photo decoding, face checks and photo-storing transactions. */
  photoWork: PhotoWork;
  /** Device clock drift, measured from heartbeats and events (a job refreshes its summary). */
  deviceClocks: DeviceClocks;
  /** The live stream's in-process hub (recognition, delivery and sync events). */
  live: LiveHub;
  /** The outbound device keys, sealed in the database. */
  deviceKeys: DeviceKeyVault;
  recognition: {
    lookups: IntakeLookups;
    writer: EventWriter;
    /** The panel delivery job (registered by server.ts). */
    delivery?: PanelDelivery;
  };
  sync: {
    /**
     * The connection the sync worker's statements go through: its own on SQLite (see
     * sync/README.md), the service's pool on MySQL or when the worker is off.
     */
    db: SyncDb;
    /** Tasks this process is pushing: the worker adds them, the API shows them `running`. */
    inFlight: InFlight;
    reconciliations: Reconciliations;
    /** Absent when SVC_PUSH_WORKER=0 (tests build their own). */
    worker?: SyncWorker;
  };
  /** Conditions an operator should fix, shown in the heartbeat (code, values, English). */
  warnings: ServiceWarning[];
  startedAt: Date;
  version: string;
}
