import {
  configureResponse,
  discoveryNode,
  type DiscoveryNode,
  knownTerminalList,
  type KnownTerminalList,
  panelRoute,
  panelTestResult,
  type PanelTestResult,
  type ConfigureRequest,
  type ConfigureResult,
  type PanelRoute,
} from '@svc/shared';
import { z } from 'zod';
import { request } from '../api';

/** The terminals heard on the LAN now (shared `discoveryNode`: the server's own contract). */
export function listNodes(signal?: AbortSignal): Promise<DiscoveryNode[]> {
  return request('GET', '/api/discovery/nodes', { schema: z.array(discoveryNode), signal });
}

/** Every terminal known: online, then offline (kept until an administrator removes them). */
export function listKnownTerminals(signal?: AbortSignal): Promise<KnownTerminalList> {
  return request('GET', '/api/discovery/terminals', { schema: knownTerminalList, signal });
}

/** Removes a terminal that went offline from the list (its token goes with it). */
export async function removeTerminal(id: string): Promise<void> {
  await request('DELETE', `/api/discovery/nodes/${encodeURIComponent(id)}`);
}

export async function configureTerminals(body: ConfigureRequest): Promise<ConfigureResult[]> {
  return (await request('POST', '/api/discovery/configure', { body, schema: configureResponse }))
    .results;
}

export function getPanelRoute(signal?: AbortSignal): Promise<PanelRoute> {
  return request('GET', '/api/panel/route', { schema: panelRoute, signal });
}

export function setPanelRoute(body: PanelRoute): Promise<PanelRoute> {
  return request('POST', '/api/panel/route', { body, schema: panelRoute });
}

/** Sends a test event to the saved route; the panel's answer or the reason it failed. */
export function testPanelRoute(): Promise<PanelTestResult> {
  return request('POST', '/api/panel/test', { schema: panelTestResult });
}
