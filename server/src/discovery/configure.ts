import { randomBytes } from 'node:crypto';
import type { ConfigureRequest, ConfigureResult } from '@svc/shared';
import type { AuditLog } from '../audit/audit.js';
import type { DiscoveredNodeRow } from '../db/models.js';
import { advertisedUrl, type AddressConfig, type HostInfo } from './address.js';
import type { NodeStore } from './node-store.js';
import { TerminalError, type TerminalClient } from './terminal-client.js';

export interface ConfigureDeps {
  store: NodeStore;
  client: TerminalClient;
  host: HostInfo;
  audit: AuditLog;
  config: AddressConfig & { timeoutS: number };
  concurrency?: number;
}

export interface Actor {
  id: string;
  name: string;
  organizationId: string;
  ip: string;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * Pushes the central address to online terminals and proves it was saved: POST the config
 * with a fresh token, read it back, compare. Each node gets its own result; nothing here
 * turns one terminal's failure into a failure of the whole request.
 */
export async function configureTerminals(
  deps: ConfigureDeps,
  request: ConfigureRequest,
  actor: Actor,
): Promise<ConfigureResult[]> {
  const ids = [...new Set(request.ids)];
  const online = new Map(
    (await deps.store.findOnline(ids, deps.config.timeoutS)).map((n) => [n.id, n]),
  );
  const results: ConfigureResult[] = new Array<ConfigureResult>(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      const id = ids[index]!;
      const node = online.get(id);
      results[index] = node
        ? await configureOne(deps, node, request, actor.organizationId)
        : {
            id,
            ok: false,
            error: `${id} is not online: no announce within ${deps.config.timeoutS} s`,
          };
      const result = results[index];
      await deps.audit.record({
        action: 'discovery.configure',
        outcome: result.ok ? 'success' : 'failure',
        organizationId: actor.organizationId,
        actor: { id: actor.id, name: actor.name },
        target: { type: 'terminal', id },
        ip: actor.ip,
        summary: result.ok ? `central address ${result.saved.centralUrl} saved` : result.error,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 8, ids.length) }, worker));
  return results;
}

async function configureOne(
  deps: ConfigureDeps,
  node: DiscoveredNodeRow,
  request: ConfigureRequest,
  organizationId: string,
): Promise<ConfigureResult> {
  const base = `http://${node.address.includes(':') ? `[${node.address}]` : node.address}:${node.port}`;
  let centralUrl = request.centralUrl;
  if (!centralUrl) {
    const advertised = advertisedUrl(deps.config, deps.host, node.address);
    if (!advertised.ok) return { id: node.id, ok: false, error: advertised.problem };
    centralUrl = advertised.url;
  }
  const token = randomBytes(32).toString('base64url');
  // The new token is valid before the push: a terminal checks in the moment it has saved, which
  // can be before the push call returns here. If the terminal refuses, the old one comes back.
  const previous = {
    tokenHash: node.tokenHash,
    tokenIssuedAt: node.tokenIssuedAt,
    organizationId: node.organizationId,
  };
  await deps.store.setToken(node.id, token, organizationId);
  try {
    try {
      await deps.client.push(base, {
        centralUrl,
        ...(request.panelUrl !== undefined && { panelUrl: request.panelUrl }),
        token,
      });
    } catch (err) {
      await deps.store.restoreToken(node.id, previous);
      throw err;
    }
    const saved = await deps.client.read(base);
    if (!sameUrl(saved.centralUrl, centralUrl)) {
      return {
        id: node.id,
        ok: false,
        error: `the terminal at ${node.address}:${node.port} saved central address "${saved.centralUrl}" instead of "${centralUrl}"`,
      };
    }
    if (request.panelUrl !== undefined && !sameUrl(saved.panelUrl, request.panelUrl)) {
      return {
        id: node.id,
        ok: false,
        error: `the terminal at ${node.address}:${node.port} saved panel address "${saved.panelUrl}" instead of "${request.panelUrl}"`,
      };
    }
    return { id: node.id, ok: true, saved };
  } catch (err) {
    if (err instanceof TerminalError) return { id: node.id, ok: false, error: err.message };
    throw err;
  }
}
