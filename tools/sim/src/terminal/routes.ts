import { panelEvent, terminalConfigUpdate } from '@svc/shared';
import type {
  DisplayStatus,
  PanelEvent,
  TerminalConfig,
  TerminalConfigUpdate,
  TerminalKind,
} from '@svc/shared';
import type { Route } from '../http/node-server.js';
import {
  hasBearer,
  readJson,
  sendJson,
  sendMethodNotAllowed,
  sendUnauthorized,
} from '../http/io.js';

export interface TerminalApi {
  kind: TerminalKind;
  managementKey: string | undefined;
  config(): TerminalConfig;
  /** Saves a pushed config; resolves with the saved config in the GET shape. */
  save(update: TerminalConfigUpdate): Promise<TerminalConfig>;
  status(): DisplayStatus;
  show(event: PanelEvent): void;
}

/** The terminal management API of PROTOCOL §2. */
export function terminalRoutes(api: TerminalApi): Route {
  return async (req, res, path) => {
    const [prefix, resource, ...rest] = path;
    if (prefix !== 'api' || rest.length > 0) return false;

    if (resource === 'config') {
      if (api.managementKey && !hasBearer(req, api.managementKey)) {
        sendUnauthorized(res);
        return true;
      }
      if (req.method === 'GET') {
        sendJson(res, 200, api.config());
      } else if (req.method === 'POST') {
        const update = await readJson(req, terminalConfigUpdate);
        sendJson(res, 200, await api.save(update));
      } else {
        sendMethodNotAllowed(res, ['GET', 'POST']);
      }
      return true;
    }

    if (api.kind !== 'display') return false;
    if (resource === 'status') {
      if (req.method === 'GET') sendJson(res, 200, api.status());
      else sendMethodNotAllowed(res, ['GET']);
      return true;
    }
    if (resource === 'recognition') {
      if (req.method !== 'POST') {
        sendMethodNotAllowed(res, ['POST']);
        return true;
      }
      api.show(await readJson(req, panelEvent));
      sendJson(res, 200, { shown: true });
      return true;
    }
    return false;
  };
}
