import { parseArgs } from 'node:util';
import { deviceSn, httpUrl, nodeId, port } from '@svc/shared';
import { z } from 'zod';
import { duration } from './durations.js';
import { faultFlag } from './faults-flag.js';
import type { FaultFlag } from './faults-flag.js';
import { simFile } from './config-file.js';
import type { FileNode, Settings } from './config-file.js';

/** A node to start, before the library validates its options. */
export interface NodeRequest {
  kind: 'enrollment' | 'display' | 'device';
  id: string;
  /** Per-node fields (from the config file or a --device spec). */
  fields: Record<string, unknown>;
}

export interface CliRequest {
  settings: Settings;
  nodes: NodeRequest[];
  ports: Map<string, number>;
  faults: FaultFlag[];
}

export type ParseOutcome =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; request: CliRequest }
  | { kind: 'error'; message: string };

const numberFlag = <T extends z.ZodType<number, number>>(schema: T) =>
  z.coerce.number().pipe(schema);

const deviceSpec = z.string().transform((text, context) => {
  const match = /^([^:@]+)(?::([^@]+))?(?:@(.+))?$/.exec(text);
  const sn = deviceSn.safeParse(match?.[1]);
  const url = match?.[3] === undefined ? undefined : httpUrl.safeParse(match[3]);
  if (!match || !sn.success || (url && !url.success)) {
    context.addIssue({
      code: 'custom',
      message: `"${text}" is not SN[:KEY][@http://central:port]`,
    });
    return z.NEVER;
  }
  return {
    kind: 'device' as const,
    id: sn.data,
    fields: {
      ...(match[2] ? { key: match[2] } : {}),
      ...(url?.success ? { centralUrl: url.data } : {}),
    },
  };
});

const portAssignment = z.string().transform((text, context) => {
  const match = /^(.+)=(\d+)$/.exec(text);
  const value = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(value) || value < 0 || value > 65535) {
    context.addIssue({ code: 'custom', message: `"${text}" is not NODE=PORT` });
    return z.NEVER;
  }
  return [match[1], value] as const;
});

const flagsSchema = z.object({
  enrollment: z.array(nodeId).default([]),
  display: z.array(nodeId).default([]),
  device: z.array(deviceSpec).default([]),
  config: z.string().min(1).optional(),
  bind: z.ipv4().optional(),
  broadcast: z.array(z.ipv4()).optional(),
  'discovery-port': numberFlag(port).optional(),
  port: z.array(portAssignment).default([]),
  'ephemeral-ports': z.boolean().optional(),
  'no-probe-listener': z.boolean().optional(),
  'control-port': numberFlag(z.number().int().min(0).max(65535)).optional(),
  central: httpUrl.optional(),
  'management-key': z.string().min(1).optional(),
  capacity: numberFlag(z.number().int().min(0)).optional(),
  'state-dir': z.string().min(1).optional(),
  'announce-interval': duration.optional(),
  'checkin-interval': duration.optional(),
  'heartbeat-interval': duration.optional(),
  fault: z.array(faultFlag).default([]),
  quiet: z.boolean().optional(),
});

const options = {
  enrollment: { type: 'string', multiple: true },
  display: { type: 'string', multiple: true },
  device: { type: 'string', multiple: true },
  config: { type: 'string' },
  bind: { type: 'string' },
  broadcast: { type: 'string', multiple: true },
  'discovery-port': { type: 'string' },
  port: { type: 'string', multiple: true },
  'ephemeral-ports': { type: 'boolean' },
  'no-probe-listener': { type: 'boolean' },
  'control-port': { type: 'string' },
  central: { type: 'string' },
  'management-key': { type: 'string' },
  capacity: { type: 'string' },
  'state-dir': { type: 'string' },
  'announce-interval': { type: 'string' },
  'checkin-interval': { type: 'string' },
  'heartbeat-interval': { type: 'string' },
  fault: { type: 'string', multiple: true },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

function describeIssues(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return `${prefix}${path ? (prefix ? '.' : '--') + path : ''}: ${issue.message}`;
    })
    .join('\n');
}

/** Drops undefined entries so that later sources only override what they actually set. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Reads the command line (and the --config file through `readFile`) into what to start. */
export function parseCli(argv: string[], readFile: (path: string) => string): ParseOutcome {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const flags = flagsSchema.safeParse(values);
  if (!flags.success) return { kind: 'error', message: describeIssues(flags.error, '') };
  const f = flags.data;

  let fileSettings: Settings = {};
  let fileNodes: FileNode[] = [];
  if (f.config) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFile(f.config));
    } catch (error) {
      return { kind: 'error', message: `--config ${f.config}: ${(error as Error).message}` };
    }
    const file = simFile.safeParse(raw);
    if (!file.success) return { kind: 'error', message: describeIssues(file.error, f.config) };
    fileSettings = file.data.settings;
    fileNodes = file.data.nodes;
  }

  const settings: Settings = {
    ...fileSettings,
    ...defined({
      bindAddress: f.bind,
      broadcastAddresses: f.broadcast,
      discoveryPort: f['discovery-port'],
      ephemeralPorts: f['ephemeral-ports'],
      listenForProbes: f['no-probe-listener'] ? false : undefined,
      controlPort: f['control-port'],
      centralUrl: f.central,
      managementKey: f['management-key'],
      capacity: f.capacity,
      stateDir: f['state-dir'],
      announceIntervalMs: f['announce-interval'],
      checkinIntervalMs: f['checkin-interval'],
      heartbeatIntervalMs: f['heartbeat-interval'],
      quiet: f.quiet,
    }),
  };

  const nodes: NodeRequest[] = [
    ...fileNodes.map((node): NodeRequest => {
      const { kind, ...fields } = node;
      const id = node.kind === 'device' ? node.sn : node.id;
      return { kind, id, fields };
    }),
    ...f.enrollment.map((id): NodeRequest => ({ kind: 'enrollment', id, fields: {} })),
    ...f.display.map((id): NodeRequest => ({ kind: 'display', id, fields: {} })),
    ...f.device,
  ];
  if (nodes.length === 0) {
    return {
      kind: 'error',
      message: 'nothing to simulate: give --enrollment, --display, --device or --config',
    };
  }
  const seen = new Set<string>();
  for (const node of nodes) {
    if (seen.has(node.id)) return { kind: 'error', message: `node ${node.id} is given twice` };
    seen.add(node.id);
  }
  const ports = new Map(f.port);
  for (const name of ports.keys()) {
    if (!seen.has(name)) return { kind: 'error', message: `--port ${name}: no such node` };
  }
  for (const flag of f.fault) {
    if (flag.node !== undefined && !seen.has(flag.node)) {
      return { kind: 'error', message: `--fault ${flag.node}: no such node` };
    }
  }
  return { kind: 'run', request: { settings, nodes, ports, faults: f.fault } };
}
