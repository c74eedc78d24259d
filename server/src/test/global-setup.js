// Runs once before the suites: names the databases the suites will use, and starts the capture
// of the SQL sent to MySQL/MariaDB (sql-capture.ts; checked in global-teardown.js). The
// directory is inherited by the workers through the environment.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function globalSetup() {
  if (process.env.SVC_TEST_MYSQL_HOST && !process.env.SVC_SQL_CAPTURE_DIR) {
    process.env.SVC_SQL_CAPTURE_DIR = mkdtempSync(join(tmpdir(), 'svc-sql-'));
    process.env.SVC_SQL_CAPTURE_OWNED = '1';
  }
  const host = process.env.SVC_TEST_MYSQL_HOST;
  process.stdout.write(
    host
      ? `\n[svc] database suites run on SQLite and MySQL/MariaDB at ${host}:${process.env.SVC_TEST_MYSQL_PORT ?? 3306}\n`
      : '\n[svc] database suites run on SQLite only: SVC_TEST_MYSQL_HOST is not set\n',
  );
}
