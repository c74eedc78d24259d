import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { DbConfig } from '../platform/config/config.js';
import { freePort, throwawayUnavailable } from './mariadb-instance.js';

const run = promisify(execFile);
const MARIADBD = '/usr/sbin/mariadbd';
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/** Why a throwaway Galera cluster cannot run here, or undefined when it can. */
export function galeraUnavailable(): string | undefined {
  const noMariadb = throwawayUnavailable();
  if (noMariadb) return noMariadb;
  if (!existsSync(GALERA_PROVIDER))
    return `${GALERA_PROVIDER} is missing (apt-get install galera-4)`;
  if (!existsSync('/usr/bin/rsync')) return 'rsync is missing (the SST method of the test)';
  return undefined;
}

interface Ports {
  sql: number;
  gcomm: number;
  ist: number;
  sst: number;
}

/**
 * Provider options for a test on a loaded 2-core machine: a killed node is declared dead
 * within a few seconds instead of the defaults' 5 s suspicion plus 15 s inactivity, during
 * which every survivor stalls its commits.
 */
const FAST_FAILURE = [
  'evs.keepalive_period=PT0.5S',
  'evs.suspect_timeout=PT2S',
  'evs.inactive_timeout=PT4S',
  'evs.inactive_check_period=PT0.5S',
  'evs.install_timeout=PT4S',
  'gcache.size=64M',
];

/** One `mariadbd` with wsrep on loopback ports of its own. */
export class GaleraNode {
  child: ChildProcess | undefined;
  private log = '';
  constructor(
    readonly index: number,
    readonly dir: string,
    readonly ports: Ports,
    private readonly cluster: { name: string; gcomm: () => string; bufferPoolMb: number },
  ) {}

  get socket() {
    return path.join(this.dir, 'run', 's.sock');
  }
  get address() {
    return `127.0.0.1:${this.ports.sql}`;
  }
  get running() {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }
  output() {
    return this.log;
  }

  private args(bootstrap: boolean): string[] {
    const { sql, gcomm, ist, sst } = this.ports;
    return [
      '--no-defaults',
      '--user=mysql',
      `--datadir=${path.join(this.dir, 'data')}`,
      `--socket=${this.socket}`,
      `--port=${sql}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${path.join(this.dir, 'run', 'pid')}`,
      `--innodb-buffer-pool-size=${this.cluster.bufferPoolMb}M`,
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      '--innodb-flush-log-at-trx-commit=2',
      '--wsrep-on=ON',
      `--wsrep-provider=${GALERA_PROVIDER}`,
      `--wsrep-cluster-name=${this.cluster.name}`,
      `--wsrep-cluster-address=${bootstrap ? 'gcomm://' : this.cluster.gcomm()}`,
      `--wsrep-node-name=node${this.index}`,
      `--wsrep-node-address=127.0.0.1:${gcomm}`,
      `--wsrep-node-incoming-address=127.0.0.1:${sql}`,
      `--wsrep-provider-options=${[
        `gmcast.listen_addr=tcp://127.0.0.1:${gcomm}`,
        `ist.recv_addr=127.0.0.1:${ist}`,
        ...FAST_FAILURE,
      ].join(';')}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${sst}`,
      '--wsrep-slave-threads=2',
      ...(bootstrap ? ['--wsrep-new-cluster'] : []),
    ];
  }

  /** Starts the node (bootstrapping a new cluster, or joining) and waits until it is Synced. */
  async start({ bootstrap = false, timeoutMs = 120_000 } = {}): Promise<void> {
    this.log = '';
    const child = spawn(MARIADBD, this.args(bootstrap), { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (d: Buffer) => {
      this.log = (this.log + d.toString()).slice(-20_000);
    });
    this.child = child;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) {
        throw new Error(`galera node ${this.index} exited: ${this.log.slice(-3000)}`);
      }
      if ((await this.status().catch(() => undefined))?.state === 'Synced') return;
      await sleep(250);
    }
    throw new Error(
      `galera node ${this.index} not Synced in ${timeoutMs} ms: ${this.log.slice(-3000)}`,
    );
  }

  async sql(statement: string): Promise<string> {
    const { stdout } = await run(
      'mariadb',
      [`--socket=${this.socket}`, '--user=root', '-N', '-B', '-e', statement],
      { timeout: 20_000 },
    );
    return stdout;
  }

  async status(): Promise<{ state: string; size: number; ready: boolean }> {
    const out = await this.sql(
      "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_cluster_size','wsrep_ready')",
    );
    const rows = new Map(
      out
        .trim()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    return {
      state: rows.get('wsrep_local_state_comment') ?? '',
      size: Number(rows.get('wsrep_cluster_size') ?? 0),
      ready: rows.get('wsrep_ready') === 'ON',
    };
  }

  /** Death without warning: no shutdown, no leave message to the cluster. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const late = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(late);
  }
}

/**
 * Three `mariadbd` nodes with wsrep on loopback ports, each with its own data directory,
 * bootstrapped from the first; the others join it by SST (rsync). Run as the `mysql` user: as
 * root, the rsync SST writes the joiner's files as `nobody` and every join fails.
 */
export class GaleraCluster {
  /** The application account's, made for this cluster and never written anywhere. */
  private readonly password = `pw-${Math.random().toString(36).slice(2)}`;
  private constructor(
    readonly dir: string,
    readonly nodes: GaleraNode[],
  ) {}

  /** `bufferPoolMb`: small for the tests; the bench gives each node a production-like pool. */
  static async create(size = 3, { bufferPoolMb = 48 } = {}): Promise<GaleraCluster> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-galera-'));
    const uid = Number((await run('id', ['-u', 'mysql'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'mysql'])).stdout.trim());
    await chown(dir, uid, gid);
    const nodes: GaleraNode[] = [];
    const name = `svc_test_${process.pid}`;
    const gcomm = () => `gcomm://${nodes.map((n) => `127.0.0.1:${n.ports.gcomm}`).join(',')}`;
    const taken = new Set<number>();
    const port = async () => {
      for (;;) {
        const p = await freePort();
        if (!taken.has(p)) {
          taken.add(p);
          return p;
        }
      }
    };
    for (let i = 0; i < size; i++) {
      const nodeDir = path.join(dir, `node${i}`);
      for (const sub of ['', 'data', 'run']) {
        await mkdir(path.join(nodeDir, sub), { recursive: true });
        await chown(path.join(nodeDir, sub), uid, gid);
      }
      const ports = {
        sql: await port(),
        gcomm: await port(),
        ist: await port(),
        sst: await port(),
      };
      nodes.push(new GaleraNode(i, nodeDir, ports, { name, gcomm, bufferPoolMb }));
    }
    await run('mariadb-install-db', [
      '--user=mysql',
      `--datadir=${path.join(nodes[0]!.dir, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    const cluster = new GaleraCluster(dir, nodes);
    try {
      await nodes[0]!.start({ bootstrap: true });
      // One joiner at a time: each takes a whole SST from a donor.
      for (const node of nodes.slice(1)) await node.start();
    } catch (err) {
      await cluster.destroy();
      throw err;
    }
    return cluster;
  }

  /**
   * An application account on every node (Galera replicates the grant) and the server's
   * database settings through `order`, the first node first.
   */
  async appAccount(
    order: number[],
    database = 'face_tp',
  ): Promise<Extract<DbConfig, { dialect: 'mysql' }> & { password: string }> {
    const password = this.password;
    const live = this.nodes.find((n) => n.running)!;
    await live.sql(
      `CREATE USER IF NOT EXISTS 'svc'@'127.0.0.1' IDENTIFIED BY '${password}'; ` +
        `GRANT ALL ON *.* TO 'svc'@'127.0.0.1';`,
    );
    const nodes = this.appNodes(order);
    return { dialect: 'mysql', ...nodes[0]!, nodes, user: 'svc', password, database };
  }

  /** The SQL addresses of the nodes `order` names, in that order. */
  appNodes(order: number[]): { host: string; port: number }[] {
    return order.map((i) => ({ host: '127.0.0.1', port: this.nodes[i]!.ports.sql }));
  }

  /** `DB_HOST` as an operator writes it for `order`. */
  hostList(order: number[]): string {
    return order.map((i) => this.nodes[i]!.address).join(',');
  }

  async destroy(): Promise<void> {
    for (const node of this.nodes) await node.kill();
    await rm(this.dir, { recursive: true, force: true });
  }
}
