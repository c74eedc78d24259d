import { join } from 'node:path';
import { DISPLAY_TERMINAL_PORT, ENROLLMENT_TERMINAL_PORT } from '@svc/shared';
import type { z } from 'zod';
import { deviceOptionsSchema } from '../device/device.js';
import type { DeviceOptions } from '../device/device.js';
import { terminalOptionsSchema } from '../terminal/terminal.js';
import type { TerminalOptions } from '../terminal/terminal.js';
import type { CliRequest, NodeRequest } from './args.js';
import { faultsFor } from './faults-flag.js';

/** The simulator's own convention for the first device of a process (the protocol names none). */
export const CLI_DEVICE_PORT = 8190;

export type NodePlan =
  | { kind: 'enrollment' | 'display'; id: string; options: TerminalOptions }
  | { kind: 'device'; id: string; options: DeviceOptions };

const defaultPorts = {
  enrollment: ENROLLMENT_TERMINAL_PORT,
  display: DISPLAY_TERMINAL_PORT,
  device: CLI_DEVICE_PORT,
} as const;

function stateFileName(node: NodeRequest): string {
  return `${node.kind}-${node.id.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

function strip(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function check<T>(
  schema: z.ZodType,
  node: NodeRequest,
  value: Record<string, unknown>,
): T | string {
  const parsed = schema.safeParse(value);
  if (parsed.success) return value as T;
  return parsed.error.issues
    .map(
      (issue) =>
        `${node.kind} ${node.id}: ${issue.path.map(String).join('.') || 'options'}: ${issue.message}`,
    )
    .join('\n');
}

/**
 * Turns the request into startTerminal/startDevice options. Precedence, weakest first: library
 * defaults, the file's settings, flags, then the node's own fields; --port and --fault last.
 * The first node of a kind gets that kind's usual port, later ones an ephemeral one.
 */
export function planNodes(request: CliRequest): { plans: NodePlan[] } | { error: string } {
  const { settings } = request;
  const usedDefault = new Set<string>();
  const plans: NodePlan[] = [];
  const errors: string[] = [];

  for (const node of request.nodes) {
    let httpPort = request.ports.get(node.id);
    if (httpPort === undefined && node.fields.httpPort === undefined) {
      httpPort =
        settings.ephemeralPorts || usedDefault.has(node.kind) ? 0 : defaultPorts[node.kind];
      usedDefault.add(node.kind);
    }
    const flagFaults = faultsFor(node.id, request.faults);
    const fileFaults = (node.fields.faults ?? {}) as Record<string, unknown>;
    const common = {
      bindAddress: settings.bindAddress,
      stateFile: settings.stateDir ? join(settings.stateDir, stateFileName(node)) : undefined,
    };
    const tail = strip({
      httpPort,
      faults: { ...fileFaults, ...flagFaults },
    });

    if (node.kind === 'device') {
      const options = strip({
        ...common,
        centralUrl: settings.centralUrl,
        capacity: settings.capacity,
        heartbeatIntervalMs: settings.heartbeatIntervalMs,
        ...node.fields,
        sn: node.id,
        ...tail,
      });
      const result = check<DeviceOptions>(deviceOptionsSchema.strict(), node, options);
      if (typeof result === 'string') errors.push(result);
      else plans.push({ kind: 'device', id: node.id, options: result });
    } else {
      const options = strip({
        ...common,
        broadcastAddresses: settings.broadcastAddresses,
        discoveryPort: settings.discoveryPort,
        listenForProbes: settings.listenForProbes,
        managementKey: settings.managementKey,
        announceIntervalMs: settings.announceIntervalMs,
        checkinIntervalMs: settings.checkinIntervalMs,
        ...node.fields,
        id: node.id,
        kind: node.kind,
        ...tail,
      });
      const result = check<TerminalOptions>(terminalOptionsSchema.strict(), node, options);
      if (typeof result === 'string') errors.push(result);
      else plans.push({ kind: node.kind, id: node.id, options: result });
    }
  }
  return errors.length ? { error: errors.join('\n') } : { plans };
}
