import { splitChosenAddress } from '@svc/shared';
import type { DiscoveredNodeRow } from '../../platform/db/models.js';
import { normalizeIp, type Endpoint } from './claims.js';

/** Where one node's config goes; `moveFrom` when the administrator chose its claimant. */
export interface PushTarget {
  node: DiscoveredNodeRow;
  to: Endpoint;
  moveFrom?: Endpoint;
}

const show = (e: Endpoint) => `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}`;

/** The node's other claimant, while it is still heard. */
export function liveClaimant(node: DiscoveredNodeRow, since: number): Endpoint | null {
  return node.conflictAddress !== null &&
    node.conflictPort !== null &&
    node.conflictLastHeard !== null &&
    node.conflictLastHeard.getTime() >= since
    ? { address: node.conflictAddress, port: node.conflictPort }
    : null;
}

/** The endpoints of a node that match what an administrator named (an ip, or ip and port). */
export function matching(candidates: Endpoint[], chosen: string): Endpoint[] {
  const { address, port } = splitChosenAddress(chosen);
  const ip = normalizeIp(address);
  return candidates.filter((e) => e.address === ip && (port === undefined || e.port === port));
}

/** A node that cannot be decided: the English sentence, and its reason code with values. */
export interface PushRefusal {
  text: string;
  reason: 'terminal_two_addresses' | 'terminal_not_heard_from' | 'terminal_two_ports';
  params: Record<string, string>;
}

/**
 * Decides, per online node, the one endpoint its config and token may go to: its accepted
 * endpoint, unless another claims its id; then only the endpoint the administrator chose.
 * Every node that cannot be decided is a refusal in plain words (the request becomes a 409).
 */
export function choosePushTargets(
  nodes: DiscoveredNodeRow[],
  chosen: Record<string, string>,
  opts: { since: number },
): { targets: PushTarget[]; refusals: PushRefusal[] } {
  const targets: PushTarget[] = [];
  const refusals: PushRefusal[] = [];
  for (const node of nodes) {
    const accepted = { address: node.address, port: node.port };
    const claimant = liveClaimant(node, opts.since);
    const choice = chosen[node.id];
    const candidates = claimant ? [accepted, claimant] : [accepted];
    if (choice === undefined) {
      if (!claimant) targets.push({ node, to: accepted });
      else {
        refusals.push({
          text: `Terminal ${node.id} is claimed from two addresses: ${show(accepted)} (accepted, last heard ${node.lastSeen.toISOString()}) and ${show(claimant)} (last heard ${node.conflictLastHeard!.toISOString()}). Choose the real terminal's address in "addresses" (nothing was sent).`,
          reason: 'terminal_two_addresses',
          params: { id: node.id, accepted: show(accepted), claimant: show(claimant) },
        });
      }
      continue;
    }
    const found = matching(candidates, choice);
    if (found.length === 1) {
      const to = found[0]!;
      targets.push(to === claimant ? { node, to, moveFrom: accepted } : { node, to });
    } else if (found.length === 0) {
      refusals.push({
        text: `Terminal ${node.id} was not heard from ${choice}: it is at ${candidates.map(show).join(' and ')} (nothing was sent).`,
        reason: 'terminal_not_heard_from',
        params: { id: node.id, choice, at: candidates.map(show).join(', ') },
      });
    } else {
      refusals.push({
        text: `Terminal ${node.id} is claimed from two ports of ${choice}: name the port too (${candidates.map(show).join(' or ')}; nothing was sent).`,
        reason: 'terminal_two_ports',
        params: { id: node.id, choice, at: candidates.map(show).join(', ') },
      });
    }
  }
  return { targets, refusals };
}
