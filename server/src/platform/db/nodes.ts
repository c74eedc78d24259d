import { ConnectionError, type Sequelize } from 'sequelize';

export interface DbNode {
  host: string;
  port: number;
}

/** What the heartbeat shows of the database nodes (a Galera cluster, or one server). */
export interface NodeStatus {
  /** `host:port` new connections go to. */
  node: string;
  /** Nodes in the cluster's primary component, as the node in use last said; null off Galera. */
  clusterSize: number | null;
}

/** The node list of one Sequelize instance and the node its new connections go to. */
export interface NodeList {
  readonly nodes: readonly DbNode[];
  status(): NodeStatus;
  /** Records the cluster size read from a node (the heartbeat's probe). */
  sawClusterSize(size: number | null): void;
}

interface DriverConnection {
  query(sql: string, cb: (err: Error | null, rows: unknown) => void): void;
  destroy(): void;
}
interface DialectConnectionManager {
  connect(config: Record<string, unknown>): Promise<DriverConnection>;
}

const WSREP_STATUS =
  "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_provider_name', 'wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_size')";

const ask = (conn: DriverConnection, sql: string) =>
  new Promise<unknown>((resolve, reject) =>
    conn.query(sql, (err, rows) => (err ? reject(err) : resolve(rows))),
  );

/** Why a freshly opened connection's node must not be used, or undefined when it may. */
async function unusable(
  conn: DriverConnection,
): Promise<{ why?: string; clusterSize: number | null }> {
  const rows = (await ask(conn, WSREP_STATUS)) as { Variable_name: string; Value: string }[];
  const status = new Map(rows.map((r) => [r.Variable_name.toLowerCase(), String(r.Value)]));
  // Not Galera (MySQL, or MariaDB without a wsrep provider): a single server, usable as it is.
  if (!status.get('wsrep_provider_name')) return { clusterSize: null };
  const clusterSize = Number(status.get('wsrep_cluster_size') ?? 0);
  if (status.get('wsrep_ready') !== 'ON') return { why: 'not wsrep_ready', clusterSize };
  const state = status.get('wsrep_local_state_comment');
  if (state !== 'Synced') return { why: `${state ?? 'in no state'}, not Synced`, clusterSize };
  // Reads see every write the cluster committed before them (causal reads): a session or
  // lease written through another replica's node is visible at once, not after its apply.
  await ask(conn, 'SET SESSION wsrep_sync_wait = 1');
  return { clusterSize };
}

/** A wrong password or a missing database is no node's fault: the same on every node. */
const notTheNode = (err: unknown) => {
  const parent = (err as { parent?: { code?: string } }).parent;
  return (
    (err as { name?: string }).name === 'SequelizeAccessDeniedError' ||
    parent?.code === 'ER_ACCESS_DENIED_ERROR' ||
    parent?.code === 'ER_BAD_DB_ERROR'
  );
};

/**
 * Makes the connections of `sequelize` fail over between `nodes`. A new connection goes to the
 * node in use; when that node refuses, times out, or is not a `Synced`, `wsrep_ready` member
 * of the cluster (a joiner, a donor, a node cut off from the primary component), the next node
 * is tried, and so on round the list, and the first usable one becomes the node in use. Pooled
 * connections to a node that died are dropped by the driver, so the pool's next connection
 * fails over.
 */
export function failOver(
  sequelize: Sequelize,
  nodes: DbNode[],
  onMove?: (from: DbNode, to: DbNode, why: string[]) => void,
): NodeList {
  let current = 0;
  let clusterSize: number | null = null;
  const manager = (sequelize as unknown as { connectionManager: DialectConnectionManager })
    .connectionManager;
  const connect = manager.connect.bind(manager);
  manager.connect = async (config) => {
    const why: string[] = [];
    let lastError: unknown;
    for (let i = 0; i < nodes.length; i++) {
      const k = (current + i) % nodes.length;
      const node = nodes[k]!;
      const name = `${node.host}:${node.port}`;
      let conn: DriverConnection;
      try {
        conn = await connect({ ...config, host: node.host, port: node.port });
      } catch (err) {
        if (notTheNode(err)) throw err;
        lastError = err;
        why.push(`${name}: ${(err as Error).message}`);
        continue;
      }
      try {
        const check = await unusable(conn);
        if (check.why) {
          conn.destroy();
          why.push(`${name}: ${check.why}`);
          continue;
        }
        clusterSize = check.clusterSize;
      } catch (err) {
        conn.destroy();
        lastError = err;
        why.push(`${name}: ${(err as Error).message}`);
        continue;
      }
      if (k !== current) {
        onMove?.(nodes[current]!, node, why);
        current = k;
      }
      return conn;
    }
    if (nodes.length === 1 && lastError instanceof Error) throw lastError;
    throw new ConnectionError(new Error(`no usable database node: ${why.join('; ')}`));
  };
  return {
    nodes,
    status: () => ({
      node: `${nodes[current]!.host}:${nodes[current]!.port}`,
      clusterSize,
    }),
    sawClusterSize(size) {
      clusterSize = size;
    },
  };
}
