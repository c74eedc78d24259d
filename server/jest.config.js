import { jestConfig } from '../jest.base.js';

export default jestConfig(import.meta.dirname, {
  // Database suites run on SQLite and, when SVC_TEST_MYSQL_* is set, on MariaDB/MySQL too;
  // the reporter says loudly when the MySQL half was skipped.
  globalSetup: '<rootDir>/src/test/global-setup.js',
  // Every statement sent to MySQL/MariaDB is recorded and parsed with MySQL 8's grammar after
  // the run (src/test/mysql8-grammar.js).
  setupFilesAfterEnv: ['<rootDir>/src/test/sql-capture.ts'],
  globalTeardown: '<rootDir>/src/test/global-teardown.js',
  reporters: ['default', '<rootDir>/src/test/dialect-reporter.js'],
  maxWorkers: 2,
});
