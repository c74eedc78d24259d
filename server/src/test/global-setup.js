// Runs once before the suites: names the databases the suites will use.
export default function globalSetup() {
  const host = process.env.SVC_TEST_MYSQL_HOST;
  process.stdout.write(
    host
      ? `\n[svc] database suites run on SQLite and MySQL/MariaDB at ${host}:${process.env.SVC_TEST_MYSQL_PORT ?? 3306}\n`
      : '\n[svc] database suites run on SQLite only: SVC_TEST_MYSQL_HOST is not set\n',
  );
}
