// Says loudly, after the summary, whether the MySQL/MariaDB half of the suites ran.
export default class DialectReporter {
  onRunComplete() {
    const host = process.env.SVC_TEST_MYSQL_HOST;
    if (host) {
      process.stdout.write(
        `\n[svc] MySQL/MariaDB half RAN against ${host}:${process.env.SVC_TEST_MYSQL_PORT ?? 3306}\n`,
      );
    } else {
      const bar = '!'.repeat(78);
      process.stdout.write(
        `\n${bar}\n[svc] WARNING: the MySQL/MariaDB half of the database suites was NOT RUN.\n` +
          '[svc] Set SVC_TEST_MYSQL_HOST (and _PORT, _USER, _PASSWORD) or run .ci/run.\n' +
          `${bar}\n`,
      );
    }
  }
}
