import type { SimDeps, SimEvent } from '../deps.js';
import { resolveDeps } from '../deps.js';
import { startDevice } from '../device/device.js';
import { controlTargetOf } from '../http/node-server.js';
import type { HttpListener } from '../infra/http-listener.js';
import { SIM_VERSION, nodeUrl } from '../node-common.js';
import { startTerminal } from '../terminal/terminal.js';
import { parseCli } from './args.js';
import { startControlServer } from './control-server.js';
import type { ControlledNode } from './control-server.js';
import { formatEvent, isNotable } from './format.js';
import { planNodes } from './plan.js';
import type { NodePlan } from './plan.js';
import { USAGE } from './usage.js';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readFile(path: string): string;
}

export interface RunningSim {
  stop(): Promise<void>;
}

export type RunOutcome = { exitCode: number } | { running: RunningSim };

interface Started {
  node: ControlledNode;
  stop(): Promise<void>;
}

async function startNode(plan: NodePlan, deps: Partial<SimDeps>): Promise<Started> {
  const handle =
    plan.kind === 'device'
      ? await startDevice(plan.options, deps)
      : await startTerminal(plan.options, deps);
  const target = controlTargetOf(handle);
  if (!target) throw new Error(`node ${plan.id} has no controls`);
  return {
    node: { kind: plan.kind, id: plan.id, url: handle.url, target },
    stop: () => handle.stop(),
  };
}

/** Parses the command line and starts every node; the caller owns signals and exit. */
export async function runSim(
  argv: string[],
  io: CliIo,
  depOverrides: Partial<SimDeps> = {},
): Promise<RunOutcome> {
  const parsed = parseCli(argv, (path) => io.readFile(path));
  if (parsed.kind === 'help') {
    io.out(USAGE);
    return { exitCode: 0 };
  }
  if (parsed.kind === 'version') {
    io.out(SIM_VERSION);
    return { exitCode: 0 };
  }
  if (parsed.kind === 'error') {
    io.err(`svc-sim: ${parsed.message}\nTry svc-sim --help.`);
    return { exitCode: 2 };
  }
  const planned = planNodes(parsed.request);
  if ('error' in planned) {
    io.err(`svc-sim: ${planned.error}`);
    return { exitCode: 2 };
  }

  const { settings } = parsed.request;
  const base = resolveDeps(depOverrides);
  const deps: Partial<SimDeps> = {
    ...depOverrides,
    onEvent: (event: SimEvent) => {
      base.onEvent(event);
      if (!settings.quiet || isNotable(event)) io.out(formatEvent(event, base.clock.now()));
    },
  };

  const started: Started[] = [];
  let control: HttpListener | undefined;
  const stopAll = async (): Promise<void> => {
    await control?.close();
    await Promise.all(started.map((node) => node.stop()));
  };

  try {
    for (const plan of planned.plans) {
      const node = await startNode(plan, deps);
      started.push(node);
      io.out(`started ${node.node.kind} ${node.node.id} ${node.node.url}`);
    }
    if (settings.controlPort !== undefined) {
      const host = settings.bindAddress ?? '0.0.0.0';
      control = await startControlServer(
        base.listenHttp,
        { host, port: settings.controlPort },
        started.map((node) => node.node),
      );
      io.out(`control ${nodeUrl(host, control.port)}/_sim/nodes`);
    }
  } catch (error) {
    io.err(`svc-sim: ${(error as Error).message}`);
    await stopAll();
    return { exitCode: 1 };
  }
  io.out('ready');
  return { running: { stop: stopAll } };
}
