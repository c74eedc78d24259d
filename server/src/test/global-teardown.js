// Runs once after the suites: every statement the MySQL half sent must parse with MySQL 8's
// grammar (mysql8-grammar.js), since only MariaDB runs the suites here.
import { rmSync } from 'node:fs';
import { mysql8SyntaxError, readCaptured } from './mysql8-grammar.js';

export default function globalTeardown() {
  const dir = process.env.SVC_SQL_CAPTURE_DIR;
  if (!dir || !process.env.SVC_TEST_MYSQL_HOST) return;
  const statements = readCaptured(dir);
  const refused = [];
  for (const sql of statements) {
    const why = mysql8SyntaxError(sql);
    if (why) refused.push(`  ${sql.slice(0, 500)}\n    -> ${why}`);
  }
  if (process.env.SVC_SQL_CAPTURE_OWNED === '1') rmSync(dir, { recursive: true, force: true });
  if (refused.length > 0) {
    throw new Error(
      `[svc] ${refused.length} of ${statements.length} distinct SQL statements sent to MariaDB ` +
        `do not parse with MySQL 8's grammar (node-sql-parser, MySQL mode):\n${refused.join('\n')}`,
    );
  }
  process.stdout.write(
    `[svc] MySQL 8 grammar: all ${statements.length} distinct SQL statements sent to MariaDB parse\n`,
  );
}
