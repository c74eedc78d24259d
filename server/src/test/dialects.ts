import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import type { DbConfig } from '../platform/config/config.js';

/**
 * Database suites run once per dialect: SQLite always; MySQL/MariaDB when SVC_TEST_MYSQL_HOST
 * is set (CI sets it). Each suite gets a database of its own, so test files run in parallel.
 */
export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

export function mysqlTarget(): MysqlTarget | undefined {
  const host = process.env.SVC_TEST_MYSQL_HOST;
  if (!host) return undefined;
  return {
    host,
    port: Number(process.env.SVC_TEST_MYSQL_PORT ?? 3306),
    user: process.env.SVC_TEST_MYSQL_USER ?? 'root',
    password: process.env.SVC_TEST_MYSQL_PASSWORD ?? '',
  };
}

export type DialectName = 'sqlite' | 'mysql';
export const DIALECTS: DialectName[] = mysqlTarget() ? ['sqlite', 'mysql'] : ['sqlite'];

export interface ScratchDb {
  db: DbConfig;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database and data directory for one suite. */
export async function scratchDb(dialect: DialectName): Promise<ScratchDb> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-test-'));
  if (dialect === 'sqlite') {
    return {
      db: { dialect: 'sqlite', storage: path.join(dataDir, 'svc.sqlite') },
      dataDir,
      drop: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const target = mysqlTarget();
  if (!target) throw new Error('SVC_TEST_MYSQL_HOST is not set');
  const database = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new Sequelize('', target.user, target.password, {
    dialect: 'mysql',
    host: target.host,
    port: target.port,
    logging: false,
  });
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.close();
  return {
    db: { dialect: 'mysql', ...target, database },
    dataDir,
    async drop() {
      const s = new Sequelize('', target.user, target.password, {
        dialect: 'mysql',
        host: target.host,
        port: target.port,
        logging: false,
      });
      await s.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await s.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
