/** The seed's defaults and the protocol's fixed numbers, named once for every workspace. */
export const SERVICE_NAME = 'svc';
export const PROTOCOL_VERSION = 1;

export const DEFAULT_HTTP_PORT = 8000;
export const DEFAULT_WEB_PORT = 80;
export const DEFAULT_DB_PORT = 3306;
export const DEFAULT_DB_DATABASE = 'face_tp';
export const DEFAULT_DISCOVERY_PORT = 20785;
export const DISPLAY_TERMINAL_PORT = 8181;
export const ENROLLMENT_TERMINAL_PORT = 8182;

/** Seconds without an announce before a discovered node is offline. */
export const DEFAULT_DISCOVERY_TIMEOUT_S = 45;
/** Seconds since the last device heartbeat before a recognition device is offline. */
export const DEFAULT_HEARTBEAT_TIMEOUT_S = 60;
/** Seconds between runs of the person synchronization worker. */
export const DEFAULT_PUSH_INTERVAL_S = 5;

/** Terminals announce every 10 s with ±1 s jitter (PROTOCOL §1). */
export const ANNOUNCE_INTERVAL_MS = 10_000;
export const ANNOUNCE_JITTER_MS = 1_000;
/** The central service answers one node at most once per 5 s (PROTOCOL §1). */
export const CENTRAL_REPLY_MIN_INTERVAL_MS = 5_000;
export const MAX_DATAGRAM_BYTES = 1024;
/** Terminals check in after saving a central URL and then every 30 s (PROTOCOL §2). */
export const CHECKIN_INTERVAL_MS = 30_000;
export const MAX_SNAPSHOT_BYTES = 512 * 1024;

export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const SEEDED_ADMIN_USERNAME = 'admin';
/**
 * The names the first start gives the organization and the administrator it creates, stored in
 * English. While a name is still exactly this, a client words it in its reader's language (the
 * shared texts' `seeded`); a name an administrator gave is shown as stored.
 */
export const SEEDED_ORGANIZATION_NAME = 'Default organization';
export const SEEDED_ADMIN_DISPLAY_NAME = 'Administrator';
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
