import { z } from 'zod';
import { centralUrl, isoTime, nodeId, optionalHttpUrl, port, terminalKind } from './common.js';
import { terminalConfig } from './terminal.js';

export const databaseState = z.enum(['up', 'down', 'connecting']);
export type DatabaseState = z.infer<typeof databaseState>;

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
  }),
  workers: z.record(z.string(), z.enum(['running', 'stopped', 'disabled'])),
  warnings: z.array(z.string()),
  discovery: z.record(z.string(), z.unknown()).optional(),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponse>;
/** `GET|POST /api/heartbeat`: the details, or the summary alone. */
export const heartbeatAnswer = z.union([heartbeatResponse, heartbeatSummary]);

/** `GET /api/device/online-count` (PROTOCOL §5). */
export const onlineCount = z.object({ count: z.number().int().min(0) });

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
});
export type DiscoveryNode = z.infer<typeof discoveryNode>;
export const discoveryNodeList = z.array(discoveryNode);

/** `POST /api/discovery/configure` (PROTOCOL §5). */
export const configureRequest = z.object({
  ids: z.array(nodeId).min(1).max(256),
  centralUrl: centralUrl.optional(),
  panelUrl: optionalHttpUrl.optional(),
});
export type ConfigureRequest = z.infer<typeof configureRequest>;

export const configureResult = z.union([
  z.object({ id: z.string(), ok: z.literal(true), saved: terminalConfig }),
  z.object({ id: z.string(), ok: z.literal(false), error: z.string() }),
]);
export type ConfigureResult = z.infer<typeof configureResult>;
export const configureResponse = z.object({ results: z.array(configureResult) });
