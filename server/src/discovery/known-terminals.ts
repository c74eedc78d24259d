import { Op, type WhereOptions } from 'sequelize';
import type { KnownTerminal, KnownTerminalList } from '@svc/shared';
import type { Clock } from '../platform/clock.js';
import type { DiscoveredNodeRow, Models } from '../platform/db/models.js';
import type { NodeList } from './node-list.js';
import { nodeOut } from './store/rows.js';

/**
 * Offline terminals listed at most: the most recently heard. Real sites have a few dozen
 * terminals; a flood of invented ids (kept until DISCOVERY_MAX_NODES prunes them) would
 * otherwise make every poll of System Configuration read thousands of rows.
 */
export const OFFLINE_LISTED = 200;

interface Deps {
  store: NodeList;
  models: Models;
  clock: Clock;
  timeoutS: number;
}

/**
 * Every terminal known (issue 30, item 10): the online ones as `GET /api/discovery/nodes`
 * lists them, then those gone silent, with how long ago each was heard. `visibleTo` (an
 * organization id) keeps that organization's terminals and unclaimed ones.
 */
export async function listKnownTerminals(
  deps: Deps,
  visibleTo: string | undefined,
): Promise<KnownTerminalList> {
  const now = deps.clock.now().getTime();
  const silentS = (lastSeen: string | Date) =>
    Math.max(0, Math.floor((now - new Date(lastSeen).getTime()) / 1000));
  const online = await deps.store.listOnline(deps.timeoutS, visibleTo);
  const where: WhereOptions<DiscoveredNodeRow> = {
    lastSeen: { [Op.lt]: new Date(now - deps.timeoutS * 1000) },
    ...(online.length > 0 && { id: { [Op.notIn]: online.map((n) => n.id) } }),
    ...(visibleTo !== undefined && {
      [Op.or]: [{ organizationId: null }, { organizationId: visibleTo }],
    }),
  };
  const [rows, offlineTotal] = await Promise.all([
    deps.models.DiscoveredNode.findAll({
      where,
      order: [['lastSeen', 'DESC']],
      limit: OFFLINE_LISTED,
    }),
    deps.models.DiscoveredNode.count({ where }),
  ]);
  const offline: KnownTerminal[] = rows.map((r) => ({
    ...nodeOut({ ...r.get({ plain: true }), conflict: null }),
    online: false,
    silentS: silentS(r.lastSeen),
  }));
  return {
    items: [...online.map((n) => ({ ...n, silentS: silentS(n.lastSeen) })), ...offline],
    offlineNotListed: Math.max(0, offlineTotal - rows.length),
  };
}
