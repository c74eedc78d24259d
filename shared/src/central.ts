import { z } from 'zod';
import { centralUrl, isoTime, nodeId, optionalHttpUrl, port, terminalKind } from './common.js';
import { ruleText } from './messages.js';
import { terminalConfig } from './terminal.js';

export const databaseState = z.enum(['up', 'down', 'connecting']);
export type DatabaseState = z.infer<typeof databaseState>;

/** What a warning is about; a client words it from its catalog by this code (issue #34). */
export const WarningCode = {
  /** `address`: the advertised central address is loopback (terminals cannot reach it). */
  advertisedLoopback: 'advertised_loopback',
  /** MySQL/MariaDB without a password. */
  databaseNoPassword: 'database_no_password',
  /** `size` members of at least `min`: one more failure can stop the cluster. */
  databaseClusterSmall: 'database_cluster_small',
  /** `count` devices (`devices` names up to 5, `more` the rest) drift over `limitS` seconds. */
  clockDriftDevices: 'clock_drift_devices',
  /** One device (`sn`) drifts by `driftMs` (positive: ahead); on the device's own answer. */
  clockDrift: 'clock_drift',
  /** Stored photos missing from this process's DATA_DIR (a replica not sharing the files). */
  photosMissingHere: 'photos_missing_here',
  /** This process cannot open the stored key of device `sn` (another secret than its peers'). */
  deviceKeyUnopenableHere: 'device_key_unopenable_here',
} as const;
export type WarningCode = (typeof WarningCode)[keyof typeof WarningCode];

/**
 * A condition an operator should fix: a stable `code` and the values its text names
 * (`params`), so a client says it in its own language; `message` is the service's English, for
 * logs and API users.
 */
export const serviceWarning = z.object({
  code: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  message: z.string(),
});
export type ServiceWarning = z.infer<typeof serviceWarning>;

/**
 * `GET`/`POST /api/heartbeat` (PROTOCOL §5). `state` is 1 when normal and 0 (with HTTP 503)
 * while the database is unreachable. This summary is all an unauthenticated caller outside
 * TRUSTED_NETWORKS reads: version, dialect, workers and warnings help an attacker more than
 * a monitor.
 */
export const heartbeatSummary = z.object({
  state: z.union([z.literal(0), z.literal(1)]),
  service: z.string(),
  time: isoTime,
  responseTimeMs: z.number().min(0),
});
export type HeartbeatSummary = z.infer<typeof heartbeatSummary>;

/** The details, for trusted networks and signed-in administrators. */
export const heartbeatResponse = heartbeatSummary.extend({
  version: z.string(),
  uptimeSeconds: z.number().int().min(0),
  database: z.object({
    state: databaseState,
    dialect: z.enum(['sqlite', 'mysql']),
    message: z.string().optional(),
    /** MySQL/MariaDB: `host:port` of the node in use (the first usable one of `DB_HOST`). */
    node: z.string().optional(),
    /** Galera: members of the cluster's primary component; null off Galera. */
    clusterSize: z.number().int().min(0).nullable().optional(),
    /** MySQL/MariaDB: transactions run again after a deadlock or certification conflict. */
    conflictRetries: z.number().int().min(0).optional(),
  }),
  workers: z.record(z.string(), z.enum(['running', 'stopped', 'disabled'])),
  /** The warnings' English texts, as monitors and older consoles read them (kept as is). */
  warnings: z.array(z.string()),
  /** The same warnings, one for one, with their codes and values (optional: older servers). */
  warningDetails: z.array(serviceWarning).optional(),
  discovery: z.record(z.string(), z.unknown()).optional(),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponse>;
/** `GET|POST /api/heartbeat`: the details, or the summary alone. */
export const heartbeatAnswer = z.union([heartbeatResponse, heartbeatSummary]);

/** `GET /api/device/online-count` (PROTOCOL §5). */
export const onlineCount = z.object({ count: z.number().int().min(0) });

/**
 * An address a terminal was heard from, as an administrator names it: `ip`, or `ip:port` /
 * `[ipv6]:port` when two claimants share an ip (the port is the announced management port).
 */
export const chosenAddress = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .regex(
    /^(?:[0-9A-Fa-f.:]+|[0-9.]+:\d{1,5}|\[[0-9A-Fa-f.:]+\]:\d{1,5})$/,
    'must be an IP address, optionally with :port ([ipv6]:port)',
  );

/** Splits a chosen address into its ip and, when given, its port. */
export function splitChosenAddress(value: string): { address: string; port?: number } {
  const v6 = /^\[(.+)\]:(\d+)$/.exec(value);
  if (v6) return { address: v6[1]!, port: Number(v6[2]) };
  const v4 = /^([0-9.]+):(\d+)$/.exec(value);
  if (v4) return { address: v4[1]!, port: Number(v4[2]) };
  return { address: value };
}

/**
 * Another claimant of a node's id: heard from a different address (or port) while the node
 * was online at its accepted one. The node does not move to it (PROTOCOL §1).
 */
export const nodeClaimant = z.object({
  address: z.string(),
  port,
  firstHeard: isoTime,
  lastHeard: isoTime,
});
export type NodeClaimant = z.infer<typeof nodeClaimant>;

/** One entry of `GET /api/discovery/nodes` (PROTOCOL §5). */
export const discoveryNode = z.object({
  id: nodeId,
  kind: terminalKind,
  name: z.string(),
  model: z.string(),
  version: z.string(),
  address: z.string(),
  port,
  configUrl: z.string(),
  central: z.string(),
  lastSeen: isoTime,
  lastCheckin: z.union([isoTime, z.null()]),
  online: z.literal(true),
  /** The other claimant while the id is claimed from two addresses, else null. */
  conflict: z.union([nodeClaimant, z.null()]),
});
export type DiscoveryNode = z.infer<typeof discoveryNode>;
export const discoveryNodeList = z.array(discoveryNode);

/**
 * `GET /api/discovery/terminals` (the site's System Configuration): every terminal known, the
 * ones heard within DISCOVERY_TIMEOUT and the ones gone silent, kept until an administrator
 * removes them (`DELETE /api/discovery/nodes/{id}`).
 */
export const knownTerminal = discoveryNode.extend({
  online: z.boolean(),
  /** Whole seconds since it was last heard, by the server's clock. */
  silentS: z.number().int().min(0),
});
export type KnownTerminal = z.infer<typeof knownTerminal>;
export const knownTerminalList = z.object({
  /** The online ones first (by id), then the offline ones, most recently heard first. */
  items: z.array(knownTerminal),
  /** Offline terminals beyond the most recent ones listed (a flood of invented ids). */
  offlineNotListed: z.number().int().min(0),
});
export type KnownTerminalList = z.infer<typeof knownTerminalList>;

/** `POST /api/discovery/configure` (PROTOCOL §5). */
/** A terminal's management key, as the technician or administrator types it. */
export const terminalKey = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .regex(/^[\x21-\x7e]+$/, ruleText('format_terminal_key'));

export const configureRequest = z.object({
  ids: z.array(nodeId).min(1).max(256),
  centralUrl: centralUrl.optional(),
  panelUrl: optionalHttpUrl.optional(),
  /**
   * Per node id, the address the administrator chose: the config (and its token) goes there
   * and nowhere else. Required for a node in conflict.
   */
  addresses: z.record(nodeId, chosenAddress).optional(),
  /**
   * Per node id, the terminal's management key (PROTOCOL §2), for terminals that have one. It is
   * sent to that terminal for this push only: never stored, echoed, logged or audited.
   */
  keys: z.record(nodeId, terminalKey).optional(),
});
export type ConfigureRequest = z.infer<typeof configureRequest>;

/**
 * What the field console asks to push (its `push` over IPC and the browser shell): the panel
 * address and management keys by configure's rules, a central address it must name, and
 * `direct`, the technician's choice to go straight to the terminals. It takes more ids than one
 * configure, since the console pushes each terminal on its own.
 */
export const pushRequest = z
  .object({
    ids: z.array(nodeId).min(1).max(1000),
    centralUrl,
    panelUrl: configureRequest.shape.panelUrl,
    keys: configureRequest.shape.keys,
    direct: z.boolean().optional(),
  })
  .strict();
export type PushRequest = z.infer<typeof pushRequest>;

export const configureResult = z.union([
  z.object({ id: z.string(), ok: z.literal(true), saved: terminalConfig }),
  z.object({
    id: z.string(),
    ok: z.literal(false),
    /** In English (PROTOCOL §5). */
    error: z.string(),
    /** The same as a code and values for a client to word (issue 34); absent from older servers. */
    errorDetail: serviceWarning.optional(),
  }),
]);
export type ConfigureResult = z.infer<typeof configureResult>;
export const configureResponse = z.object({ results: z.array(configureResult) });

/** `POST /api/discovery/nodes/{id}/address`: an administrator confirms that a node moved. */
export const nodeAddressConfirm = z.object({ address: chosenAddress });
export type NodeAddressConfirm = z.infer<typeof nodeAddressConfirm>;
