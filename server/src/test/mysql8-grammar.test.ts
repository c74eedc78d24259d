import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSequelize } from '../platform/db/sequelize.js';
import { mysqlTarget, scratchDb } from './dialects.js';
import { mysql8SyntaxError, readCaptured, sqlShape } from './mysql8-grammar.js';

describe('MySQL 8 grammar check', () => {
  it.each([
    ['INSERT ... RETURNING', 'INSERT INTO people (name) VALUES (?) RETURNING id'],
    ['DELETE ... RETURNING', "DELETE FROM sessions WHERE id = 'x' RETURNING id"],
    ['sequences', 'CREATE SEQUENCE person_seq'],
    ['ADD COLUMN IF NOT EXISTS', 'ALTER TABLE people ADD COLUMN IF NOT EXISTS note TEXT'],
    [
      'a broken statement around a rewritten hint',
      'SELECT p.id FROM people p FORCE INDEX (k) WHERE WHERE',
    ],
  ])('refuses MariaDB-only syntax: %s', (_name, sql) => {
    expect(mysql8SyntaxError(sql)).toEqual(expect.any(String));
  });

  it.each([
    'SELECT 1 AS ok',
    'START TRANSACTION;',
    'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;',
    'SELECT id FROM sync_tasks WHERE state = 0 ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED',
    'INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUES(b)',
    'SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) AS n FROM t',
    // Parser gaps rewritten before parsing (PARSER_GAPS).
    'SELECT STRAIGHT_JOIN p.id FROM people p FORCE INDEX (people_org_name_key) WHERE p.a = ?',
    'INSERT INTO `audit_log` (`id`,`at`) VALUES (DEFAULT,?)',
    'CREATE TABLE t (`score` DOUBLE PRECISION NOT NULL DEFAULT 0, PRIMARY KEY (`score`)) ENGINE=InnoDB',
    'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;',
  ])('accepts MySQL 8 syntax: %s', (sql) => {
    expect(mysql8SyntaxError(sql)).toBeNull();
  });

  it('lets through only the whole Sequelize session statements the parser lacks', () => {
    expect(
      mysql8SyntaxError('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; DROP TABLE t'),
    ).toEqual(expect.any(String));
  });

  it('one shape for the same statement with other values', () => {
    expect(sqlShape("SELECT * FROM t2 WHERE a = 'it''s' AND b IN (1, 2, 3) AND c = -4.5")).toBe(
      sqlShape("SELECT * FROM t2 WHERE a = 'x'   AND b IN (7) AND c = 9"),
    );
    expect(sqlShape('INSERT INTO t (a,b) VALUES (1,NULL),(2,?)')).toBe(
      'INSERT INTO t (a,b) VALUES (…)',
    );
    expect(sqlShape('SELECT a FROM t1')).not.toBe(sqlShape('SELECT a FROM t2'));
  });

  it('reads every capture file of a directory, each statement once', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sql-test-'));
    writeFileSync(
      path.join(dir, 'sql-1.jsonl'),
      `${JSON.stringify('SELECT 1')}\n${JSON.stringify('SELECT\n2')}\n`,
    );
    writeFileSync(path.join(dir, 'sql-2.jsonl'), `${JSON.stringify('SELECT 1')}\n`);
    writeFileSync(path.join(dir, 'other.txt'), 'not read');
    expect(readCaptured(dir).sort()).toEqual(['SELECT\n2', 'SELECT 1'].sort());
  });

  const mysql = mysqlTarget() && process.env.SVC_SQL_CAPTURE_DIR ? it : it.skip;
  mysql('records what the server sends to MariaDB, for the check after the run', async () => {
    const dir = process.env.SVC_SQL_CAPTURE_DIR ?? '';
    const scratch = await scratchDb('mysql');
    const sequelize = createSequelize(scratch.db);
    const marker = `grammar_probe_${Date.now()}`;
    try {
      await sequelize.query(`SELECT 1 AS ${marker}`);
    } finally {
      await sequelize.close();
      await scratch.drop();
    }
    const own = readdirSync(dir).find((f) => f === `sql-${process.pid}.jsonl`);
    expect(own).toBeDefined();
    expect(readFileSync(path.join(dir, own ?? ''), 'utf8')).toContain(marker);
  });
});
