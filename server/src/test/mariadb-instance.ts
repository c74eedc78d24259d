import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { DbConfig } from '../platform/config/config.js';

const run = promisify(execFile);
const MARIADBD = '/usr/sbin/mariadbd';

/** Why a throwaway instance cannot run here, or undefined when it can. */
export function throwawayUnavailable(): string | undefined {
  if (!existsSync(MARIADBD)) return `${MARIADBD} is not installed`;
  if (process.getuid?.() !== 0) return 'needs root to run mariadbd as the mysql user';
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A MariaDB server of the test's own (own data directory, socket and port) that can be
 * stopped and started under a running svc_server. Never the shared instance on 3306.
 */
export class ThrowawayMariaDb {
  private child: ChildProcess | undefined;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get socket() {
    return path.join(this.dir, 'run', 's.sock');
  }

  static async create(): Promise<ThrowawayMariaDb> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-mariadb-'));
    for (const sub of ['data', 'run']) {
      await mkdir(path.join(dir, sub));
    }
    const { stdout } = await run('id', ['-u', 'mysql']);
    const { stdout: gid } = await run('id', ['-g', 'mysql']);
    for (const sub of ['', 'data', 'run']) {
      await chown(path.join(dir, sub), Number(stdout.trim()), Number(gid.trim()));
    }
    await run('mariadb-install-db', [
      '--user=mysql',
      `--datadir=${path.join(dir, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    const instance = new ThrowawayMariaDb(dir, await freePort());
    await instance.start();
    return instance;
  }

  async start(): Promise<void> {
    this.child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        '--user=mysql',
        `--datadir=${path.join(this.dir, 'data')}`,
        `--socket=${this.socket}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--pid-file=${path.join(this.dir, 'run', 'pid')}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 200; i++) {
      try {
        await run('mariadb-admin', [`--socket=${this.socket}`, '--user=root', 'ping']);
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error('throwaway mariadbd did not start');
  }

  async sql(statement: string): Promise<void> {
    await run('mariadb', [`--socket=${this.socket}`, '--user=root', '-e', statement]);
  }

  /**
   * An application account (a generated password, all privileges) and the server's database
   * settings for it: what svc_server gets on a real host.
   */
  async appAccount(database = 'face_tp'): Promise<Extract<DbConfig, { dialect: 'mysql' }>> {
    const password = `pw-${Math.random().toString(36).slice(2)}`;
    await this.sql(
      `CREATE USER 'svc'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO 'svc'@'127.0.0.1';`,
    );
    return {
      dialect: 'mysql',
      host: '127.0.0.1',
      port: this.port,
      user: 'svc',
      password,
      database,
    };
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.child = undefined;
  }

  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
