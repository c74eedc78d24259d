import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimDeps } from '../deps.js';
import type { HttpListener } from '../infra/http-listener.js';
import { applyRequestFaults, createFaultSwitch, faultsSchema } from './faults.js';
import type { Faults, FaultSwitch } from './faults.js';
import {
  readJson,
  requestPath,
  sendBodyError,
  sendError,
  sendJson,
  sendMethodNotAllowed,
  sendNotFound,
} from './io.js';

export type Route = (req: IncomingMessage, res: ServerResponse, path: string[]) => Promise<boolean>;

/** What a simulated node serves: its protocol API, its state, and simulator-only controls. */
export interface SimNodeRoutes {
  /** Protocol endpoints under /api; resolves false when nothing matched (then 404). */
  api: Route;
  /** Node-specific endpoints under /_sim beyond `state` and `faults` (path without `_sim`). */
  control?: Route;
  /** The JSON of `GET /_sim/state`; never holds a secret. */
  state(): unknown;
}

export interface ControlTarget {
  routes: SimNodeRoutes;
  faults: FaultSwitch;
}

/**
 * Answers the simulator-only control endpoints of one node; `path` is what follows `/_sim`.
 * Shared by each node's own server and the CLI's control server.
 */
export async function handleControl(
  target: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  path: string[],
): Promise<void> {
  const [head, ...rest] = path;
  if (head === 'state' && rest.length === 0) {
    if (req.method !== 'GET') return sendMethodNotAllowed(res, ['GET']);
    return sendJson(res, 200, target.routes.state());
  }
  if (head === 'faults' && rest.length === 0) {
    if (req.method === 'GET') return sendJson(res, 200, target.faults.current());
    if (req.method !== 'POST') return sendMethodNotAllowed(res, ['GET', 'POST']);
    const faults: Faults = await readJson(req, faultsSchema);
    return sendJson(res, 200, await target.faults.set(faults));
  }
  if (target.routes.control && (await target.routes.control(req, res, path))) return;
  sendNotFound(res);
}

async function dispatch(
  target: ControlTarget,
  deps: SimDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = requestPath(req);
  if (!path) return sendError(res, 400, 'invalid_input', 'malformed path');
  if (path[0] === '_sim') return handleControl(target, req, res, path.slice(1));
  if (await applyRequestFaults(target.faults.current(), req, res, deps)) return;
  if (!(await target.routes.api(req, res, path))) sendNotFound(res);
}

export interface NodeServer {
  listener: HttpListener;
  faults: FaultSwitch;
  target: ControlTarget;
}

// Handles stay free of internals; the CLI's control server finds a node's controls here.
const controlTargets = new WeakMap<object, ControlTarget>();

export function registerControl(handle: object, target: ControlTarget): void {
  controlTargets.set(handle, target);
}

export function controlTargetOf(handle: object): ControlTarget | undefined {
  return controlTargets.get(handle);
}

/** Starts the HTTP server of one simulated node with its faults applied. */
export async function startNodeServer(
  routes: SimNodeRoutes,
  where: { host: string; port: number },
  deps: SimDeps,
  initialFaults: Faults,
  onFaults: (faults: Faults) => void,
): Promise<NodeServer> {
  // Filled once the fault switch exists; the switch itself needs the listener.
  const slot: { target?: ControlTarget } = {};
  const listener = await deps.listenHttp(async (req, res) => {
    if (!slot.target) return sendError(res, 503, 'starting', 'the node is starting');
    try {
      await dispatch(slot.target, deps, req, res);
    } catch (error) {
      if (!sendBodyError(res, error)) throw error;
    }
  }, where);
  const faults = createFaultSwitch(listener, onFaults);
  const ready: ControlTarget = { routes, faults };
  slot.target = ready;
  try {
    await faults.set(initialFaults);
  } catch (error) {
    await listener.close();
    throw error;
  }
  return { listener, faults, target: ready };
}
