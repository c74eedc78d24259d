import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  type ConfigureRequest,
  type ConfigureResult,
  type ServiceWarning,
} from '@svc/shared';
import type { AuditLog } from '../audit/audit.js';
import type { Clock } from '../platform/clock.js';
import type { DiscoveredNodeRow } from '../platform/db/models.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { advertisedUrl, type AddressConfig, type HostInfo } from './address.js';
import type { Endpoint } from './identity/claims.js';
import { choosePushTargets, type PushTarget } from './identity/targets.js';
import type { NodeList } from './node-list.js';
import { TerminalError, type TerminalClient } from './terminal-client.js';

export interface ConfigureDeps {
  store: NodeList;
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
  /** A superadmin may configure any organization's terminal; anyone else only their own. */
  superadmin: boolean;
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
  await assertMayConfigure(deps.audit, found, actor);
  const plan = choosePushTargets(found, request.addresses ?? {}, {
    since: deps.clock.now().getTime() - deps.config.timeoutS * 1000,
  });
  const [first] = plan.refusals;
  if (first) {
    // The first refusal by code (the others in the English, and counted for the client).
    throw httpErrors.conflict(plan.refusals.map((r) => r.text).join(' '), {
      reason: first.reason,
      ...first.params,
      others: plan.refusals.length - 1,
    });
  }
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
      // A superadmin's push leaves a terminal in its organization; an unclaimed one joins the
      // actor's. Either way the audit entry goes where the terminal belongs.
      const organizationId = target?.node.organizationId ?? actor.organizationId;
      results[index] = target
        ? await configureOne(deps, target.node, target.to, request, organizationId)
        : failed(
            id,
            'terminal_not_online',
            { id, seconds: deps.config.timeoutS },
            `${id} is not online: no announce within ${deps.config.timeoutS} s`,
          );
      const result = results[index];
      await deps.audit.record({
        action: 'discovery.configure',
        outcome: result.ok ? 'success' : 'failure',
        organizationId,
        actor: { id: actor.id, name: actor.name },
        target: { type: 'terminal', id },
        ip: actor.ip,
        summary: result.ok ? `central address ${result.saved.centralUrl} saved` : result.error,
        // A failure's words are the terminal's or the network's (kept as they came).
        message: result.ok
          ? { code: 'central_address_saved', params: { url: result.saved.centralUrl } }
          : {
              code: 'central_address_not_saved',
              // The English stays for older readers; `reason` and its values word it.
              params: {
                error: result.error,
                ...(result.errorDetail && {
                  ...result.errorDetail.params,
                  reason: result.errorDetail.code,
                }),
              },
            },
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 8, ids.length) }, worker));
  return results;
}

/**
 * A per-terminal failure (PROTOCOL §5): `error` in English as the protocol has it, and
 * `errorDetail` the same as a code and values for a client to word (issue 34).
 */
function failed(
  id: string,
  code: string,
  params: ServiceWarning['params'],
  error: string,
): ConfigureResult {
  return { id, ok: false, error, errorDetail: { code, params, message: error } };
}

/**
 * A terminal tied to an organization is configured only by that organization or a superadmin:
 * otherwise its token, its place in the list and the people it enrolls would move to the
 * actor's organization. The refusal names neither the other organization nor anything of it;
 * both organizations' audit logs record the attempt (the owner's without the actor's name).
 */
export async function assertMayConfigure(
  audit: AuditLog,
  nodes: readonly Pick<DiscoveredNodeRow, 'id' | 'organizationId'>[],
  actor: Actor,
): Promise<void> {
  if (actor.superadmin) return;
  const foreign = nodes.filter(
    (n) => n.organizationId !== null && n.organizationId !== actor.organizationId,
  );
  if (foreign.length === 0) return;
  for (const node of foreign) {
    const target = { type: 'terminal', id: node.id };
    await audit.record({
      action: 'discovery.configure',
      outcome: 'denied',
      organizationId: actor.organizationId,
      actor: { id: actor.id, name: actor.name },
      target,
      ip: actor.ip,
      summary: `refused: terminal ${node.id} is managed by another organization`,
      message: { code: 'configure_refused_foreign', params: { id: node.id } },
    });
    await audit.record({
      action: 'discovery.configure',
      outcome: 'denied',
      organizationId: node.organizationId,
      actor: { id: null, name: 'an administrator of another organization' },
      target,
      summary: `refused: an administrator of another organization tried to configure terminal ${node.id}`,
      message: { code: 'configure_refused_by_other', params: { id: node.id } },
    });
  }
  const ids = foreign.map((n) => n.id).join(', ');
  throw new HttpError(
    403,
    ErrorCode.terminalOtherOrganization,
    `${foreign.length === 1 ? `Terminal ${ids} is` : `Terminals ${ids} are`} managed by another organization: only its administrators or a superadmin may configure ${foreign.length === 1 ? 'it' : 'them'}. Nothing was pushed.`,
    undefined,
    undefined,
    { params: { terminalIds: ids } },
  );
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
    message: {
      code: 'terminal_moved',
      params: { id, from: `${from.address}:${from.port}`, to: `${to.address}:${to.port}` },
    },
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
    if (!advertised.ok) {
      return { id: node.id, ok: false, error: advertised.problem, errorDetail: advertised.detail };
    }
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
      return failed(
        node.id,
        'terminal_saved_other_central',
        { where: `${to.address}:${to.port}`, saved: saved.centralUrl, wanted: centralUrl },
        `the terminal at ${to.address}:${to.port} saved central address "${saved.centralUrl}" instead of "${centralUrl}"`,
      );
    }
    if (request.panelUrl !== undefined && !sameUrl(saved.panelUrl, request.panelUrl)) {
      return failed(
        node.id,
        'terminal_saved_other_panel',
        { where: `${to.address}:${to.port}`, saved: saved.panelUrl, wanted: request.panelUrl },
        `the terminal at ${to.address}:${to.port} saved panel address "${saved.panelUrl}" instead of "${request.panelUrl}"`,
      );
    }
    return { id: node.id, ok: true, saved };
  } catch (err) {
    if (err instanceof TerminalError) {
      return { id: node.id, ok: false, error: err.message, errorDetail: err.detail };
    }
    throw err;
  }
}
