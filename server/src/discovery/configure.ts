import { randomBytes } from 'node:crypto';
import type { ConfigureRequest, ConfigureResult } from '@svc/shared';
import type { AuditLog } from '../audit/audit.js';
import type { Clock } from '../clock.js';
import type { DiscoveredNodeRow } from '../db/models.js';
import { httpErrors } from '../http/errors.js';
import { advertisedUrl, type AddressConfig, type HostInfo } from './address.js';
import type { Endpoint } from './identity/claims.js';
import { choosePushTargets, type PushTarget } from './identity/targets.js';
import type { NodeStore } from './node-store.js';
import { TerminalError, type TerminalClient } from './terminal-client.js';

export interface ConfigureDeps {
  store: NodeStore;
  client: TerminalClient;
  host: HostInfo;
  audit: AuditLog;
  clock: Clock;
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
 * turns one terminal's failure into a failure of the whole request — except a node claimed
 * from two addresses without the administrator's choice: then nothing is pushed (409).
 */
export async function configureTerminals(
  deps: ConfigureDeps,
  request: ConfigureRequest,
  actor: Actor,
): Promise<ConfigureResult[]> {
  const ids = [...new Set(request.ids)];
  // What the worker heard so far is in the table before the conflicts are judged.
  await deps.store.flush().catch(() => undefined);
  const found = await deps.store.findOnline(ids, deps.config.timeoutS);
  const plan = choosePushTargets(found, request.addresses ?? {}, {
    since: deps.clock.now().getTime() - deps.config.timeoutS * 1000,
  });
  if (plan.refusals.length > 0) throw httpErrors.conflict(plan.refusals.join(' '));
  const online = new Map<string, PushTarget>();
  for (const target of plan.targets) {
    if (target.moveFrom && !(await moveToChosen(deps, target, actor))) continue;
    online.set(target.node.id, target);
  }
  const results: ConfigureResult[] = new Array<ConfigureResult>(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      const id = ids[index]!;
      const target = online.get(id);
      results[index] = target
        ? await configureOne(deps, target.node, target.to, request, actor.organizationId)
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

/** The administrator chose the claimant: the node is accepted there before the push. */
async function moveToChosen(deps: ConfigureDeps, target: PushTarget, actor: Actor) {
  const moved = await deps.store.confirmMove(target.node.id, target.to);
  if (!moved.ok) return false;
  await auditMove(deps.audit, target.node.id, moved.from, target.to, actor);
  return true;
}

export async function auditMove(
  audit: AuditLog,
  id: string,
  from: Endpoint,
  to: Endpoint,
  actor: Actor,
): Promise<void> {
  await audit.record({
    action: 'discovery.move',
    organizationId: actor.organizationId,
    actor: { id: actor.id, name: actor.name },
    target: { type: 'terminal', id },
    ip: actor.ip,
    summary: `terminal ${id} moved from ${from.address}:${from.port} to ${to.address}:${to.port} by an administrator`,
  });
}

async function configureOne(
  deps: ConfigureDeps,
  node: DiscoveredNodeRow,
  to: Endpoint,
  request: ConfigureRequest,
  organizationId: string,
): Promise<ConfigureResult> {
  // The address the administrator chose (or the only one heard): the token goes nowhere else.
  const base = `http://${to.address.includes(':') ? `[${to.address}]` : to.address}:${to.port}`;
  let centralUrl = request.centralUrl;
  if (!centralUrl) {
    const advertised = advertisedUrl(deps.config, deps.host, to.address);
    if (!advertised.ok) return { id: node.id, ok: false, error: advertised.problem };
    centralUrl = advertised.url;
  }
  const token = randomBytes(32).toString('base64url');
  // The new token is valid before the push: a terminal checks in the moment it has saved, which
  // can be before the push call returns here. If the terminal refuses, the old one comes back.
  const previous = {
    tokenHash: node.tokenHash,
    tokenIssuedAt: node.tokenIssuedAt,
    tokenAddress: node.tokenAddress,
    organizationId: node.organizationId,
  };
  await deps.store.setToken(node.id, token, organizationId, to.address);
  const key = request.keys?.[node.id];
  try {
    try {
      await deps.client.push(
        base,
        {
          centralUrl,
          ...(request.panelUrl !== undefined && { panelUrl: request.panelUrl }),
          token,
        },
        key,
      );
    } catch (err) {
      await deps.store.restoreToken(node.id, previous);
      throw err;
    }
    const saved = await deps.client.read(base, key);
    if (!sameUrl(saved.centralUrl, centralUrl)) {
      return {
        id: node.id,
        ok: false,
        error: `the terminal at ${to.address}:${to.port} saved central address "${saved.centralUrl}" instead of "${centralUrl}"`,
      };
    }
    if (request.panelUrl !== undefined && !sameUrl(saved.panelUrl, request.panelUrl)) {
      return {
        id: node.id,
        ok: false,
        error: `the terminal at ${to.address}:${to.port} saved panel address "${saved.panelUrl}" instead of "${request.panelUrl}"`,
      };
    }
    return { id: node.id, ok: true, saved };
  } catch (err) {
    if (err instanceof TerminalError) return { id: node.id, ok: false, error: err.message };
    throw err;
  }
}
