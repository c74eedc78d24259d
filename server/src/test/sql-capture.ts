// Jest setup (setupFilesAfterEnv): records every statement sent to a MySQL/MariaDB database in
// this test file, so globalTeardown can parse them with MySQL 8's grammar (mysql8-grammar.js).
// On while SVC_SQL_CAPTURE_DIR is set (global-setup.js sets it when the MySQL half runs). Each
// shape is written once per process; the value is a JSON string a line.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';
import { sqlShape } from './mysql8-grammar.js';

const dir = process.env.SVC_SQL_CAPTURE_DIR;

if (dir) {
  const file = join(dir, `sql-${process.pid}.jsonl`);
  const seen = new Set<string>();
  Sequelize.addHook('afterInit', (sequelize: Sequelize) => {
    if (sequelize.getDialect() !== 'mysql') return;
    sequelize.addHook('afterQuery', (_options: unknown, query: unknown) => {
      const sql = (query as { sql?: unknown }).sql;
      if (typeof sql !== 'string' || sql === '') return;
      const shape = sqlShape(sql);
      if (seen.has(shape)) return;
      seen.add(shape);
      appendFileSync(file, `${JSON.stringify(sql)}\n`);
    });
  });
}
