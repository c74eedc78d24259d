import type { ListenHttp, HttpListener } from '../infra/http-listener.js';
import { handleControl } from '../http/node-server.js';
import type { ControlTarget } from '../http/node-server.js';
import {
  requestPath,
  sendBodyError,
  sendError,
  sendJson,
  sendMethodNotAllowed,
  sendNotFound,
} from '../http/io.js';

export interface ControlledNode {
  kind: string;
  id: string;
  url: string;
  target: ControlTarget;
}

/**
 * One port for the controls of every node in the process: `GET /_sim/nodes` lists them and
 * `/_sim/nodes/<id>/<state|faults|emit|...>` reaches one. Unlike the nodes' own `/_sim/*`,
 * it keeps answering while a node refuses connections.
 */
export function startControlServer(
  listenHttp: ListenHttp,
  where: { host: string; port: number },
  nodes: ControlledNode[],
): Promise<HttpListener> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return listenHttp(async (req, res) => {
    try {
      const path = requestPath(req);
      if (!path) return sendError(res, 400, 'invalid_input', 'malformed path');
      const [sim, collection, id, ...rest] = path;
      if (sim !== '_sim' || collection !== 'nodes') return sendNotFound(res);
      if (id === undefined) {
        if (req.method !== 'GET') return sendMethodNotAllowed(res, ['GET']);
        return sendJson(
          res,
          200,
          nodes.map(({ kind, id: nodeId, url }) => ({ kind, id: nodeId, url })),
        );
      }
      const node = byId.get(id);
      if (!node) return sendNotFound(res);
      await handleControl(node.target, req, res, rest);
    } catch (error) {
      if (!sendBodyError(res, error)) throw error;
    }
  }, where);
}
