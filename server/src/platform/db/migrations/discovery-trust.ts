import type { ModelAttributeColumnOptions } from 'sequelize';
import { col, DataTypes, type Migration } from '../migration.js';

const addColumn = (
  name: string,
  spec: ModelAttributeColumnOptions,
): Pick<Migration, 'up' | 'down'> => ({
  up: ({ qi }) => qi.addColumn('discovered_nodes', name, spec),
  down: ({ qi }) => qi.removeColumn('discovered_nodes', name),
});

/**
 * 0060–0065: a terminal's identity is its address (issue 20). The token is bound to the
 * address it was pushed to; a second address claiming an online node's id is kept beside it
 * as a conflict instead of moving the node.
 */
export const discoveryTrustMigrations: Migration[] = [
  {
    name: '0060-add-discovered-nodes-token-address',
    ...addColumn('token_address', { type: DataTypes.STRING(64), allowNull: true }),
  },
  {
    name: '0061-bind-existing-tokens-to-their-address',
    // A token pushed before this rule existed went to the address the node had then; the
    // best evidence of that address is the one the node has now.
    up: async ({ qi }) => {
      await qi.sequelize.query(
        'UPDATE discovered_nodes SET token_address = address WHERE token_hash IS NOT NULL',
      );
    },
    down: () => Promise.resolve(),
  },
  {
    name: '0062-add-discovered-nodes-conflict-address',
    ...addColumn('conflict_address', { type: DataTypes.STRING(64), allowNull: true }),
  },
  {
    name: '0063-add-discovered-nodes-conflict-port',
    ...addColumn('conflict_port', { type: DataTypes.INTEGER, allowNull: true }),
  },
  {
    name: '0064-add-discovered-nodes-conflict-first-heard',
    ...addColumn('conflict_first_heard', col.time(true)),
  },
  {
    name: '0065-add-discovered-nodes-conflict-last-heard',
    ...addColumn('conflict_last_heard', col.time(true)),
  },
];
