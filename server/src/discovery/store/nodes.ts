import { Op, QueryTypes, type Sequelize } from 'sequelize';
import type { DiscoveredNodeRow, Models } from '../../platform/db/models.js';
import {
  COLUMNS,
  SELECT_NODES,
  toRow,
  upsertSql,
  type NodeRowRaw,
  type NodeState,
} from './rows.js';

/** The token columns of a node, as a push sets them or a refused push puts them back. */
export interface TokenColumns {
  tokenHash: string | null;
  tokenIssuedAt: Date | null;
  tokenAddress: string | null;
  organizationId?: string | null;
}

/**
 * Every statement on discovered_nodes: the node list (node-list.ts) keeps the cache and the
 * rules, and reads and writes the table only through these.
 */
export class NodeRows {
  constructor(private readonly deps: { sequelize: Sequelize; models: Models }) {}

  /** One multi-row upsert of what announces said (at most a chunk of rows). */
  async upsert(rows: (NodeState & { createdAt: Date })[]): Promise<void> {
    const { sequelize } = this.deps;
    const dialect = sequelize.getDialect() === 'mysql' ? 'mysql' : 'sqlite';
    await sequelize.query(upsertSql(dialect, rows.length), {
      replacements: rows.flatMap((r) => toRow(r, COLUMNS)),
    });
  }

  /** The whole table, for the cache. */
  selectAll(): Promise<NodeRowRaw[]> {
    return this.deps.sequelize.query<NodeRowRaw>(SELECT_NODES, { type: QueryTypes.SELECT });
  }

  /** Ids never given a token and silent since before `cutoff`. */
  async staleUntokened(cutoff: Date): Promise<string[]> {
    const rows = await this.deps.models.DiscoveredNode.findAll({
      attributes: ['id'],
      where: { tokenHash: null, lastSeen: { [Op.lt]: cutoff } },
    });
    return rows.map((r) => r.id);
  }

  /** Deletes those of `ids` still untokened and silent since before `cutoff`. */
  async deleteStale(ids: string[], cutoff: Date): Promise<void> {
    await this.deps.models.DiscoveredNode.destroy({
      where: { tokenHash: null, lastSeen: { [Op.lt]: cutoff }, id: { [Op.in]: ids } },
    });
  }

  /** Deletes the node if silent since before `silentBefore`; the rows deleted (0 or 1). */
  deleteSilent(id: string, silentBefore: Date): Promise<number> {
    return this.deps.models.DiscoveredNode.destroy({
      where: { id, lastSeen: { [Op.lt]: silentBefore } },
    });
  }

  /** Those of `ids` heard since `since`. */
  heardSince(ids: string[], since: Date): Promise<DiscoveredNodeRow[]> {
    return this.deps.models.DiscoveredNode.findAll({
      where: { id: { [Op.in]: ids }, lastSeen: { [Op.gte]: since } },
    });
  }

  async addressOf(id: string): Promise<string | undefined> {
    return (await this.deps.models.DiscoveredNode.findByPk(id))?.address;
  }

  async setToken(id: string, columns: TokenColumns): Promise<void> {
    await this.deps.models.DiscoveredNode.update(columns, { where: { id } });
  }

  async stampCheckin(id: string, at: Date): Promise<void> {
    await this.deps.models.DiscoveredNode.update({ lastCheckin: at }, { where: { id } });
  }

  /** The node whose token hash is `tokenHash`, bound to `address`. */
  findByToken(tokenHash: string, address: string): Promise<DiscoveredNodeRow | null> {
    return this.deps.models.DiscoveredNode.findOne({ where: { tokenHash, tokenAddress: address } });
  }
}
