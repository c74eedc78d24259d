import { deviceSn, httpUrl, nodeId, port } from '@svc/shared';
import { z } from 'zod';

const milliseconds = z.number().int().min(0);

/** Process-wide settings: from the file's "settings", overridden by command-line flags. */
export const settingsSchema = z
  .object({
    bindAddress: z.ipv4(),
    broadcastAddresses: z.array(z.ipv4()).min(1),
    discoveryPort: port,
    ephemeralPorts: z.boolean(),
    listenForProbes: z.boolean(),
    controlPort: z.number().int().min(0).max(65535),
    centralUrl: httpUrl,
    managementKey: z.string().min(1),
    capacity: z.number().int().min(0),
    stateDir: z.string().min(1),
    announceIntervalMs: milliseconds,
    checkinIntervalMs: milliseconds,
    heartbeatIntervalMs: milliseconds,
    quiet: z.boolean(),
  })
  .partial()
  .strict();
export type Settings = z.infer<typeof settingsSchema>;

// The remaining fields are startTerminal/startDevice options, checked strictly per node later.
const terminalNode = z
  .object({ kind: z.enum(['enrollment', 'display']), id: nodeId })
  .catchall(z.unknown());
const deviceNode = z.object({ kind: z.literal('device'), sn: deviceSn }).catchall(z.unknown());

/**
 * The `--config` file:
 * `{"settings": {...}, "nodes": [{"kind":"enrollment","id":"ENR-1",...}, {"kind":"device","sn":"DEV-1",...}]}`.
 */
export const simFile = z
  .object({
    settings: settingsSchema.default({}),
    nodes: z.array(z.discriminatedUnion('kind', [terminalNode, deviceNode])).default([]),
  })
  .strict();
export type FileNode = z.infer<typeof simFile>['nodes'][number];
