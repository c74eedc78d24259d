import { jestConfig } from '../jest.base.js';

export default jestConfig(import.meta.dirname, {
  // Database suites run on SQLite and, when SVC_TEST_MYSQL_* is set, on MariaDB/MySQL too;
  // the reporter says loudly when the MySQL half was skipped.
  globalSetup: '<rootDir>/src/test/global-setup.js',
  reporters: ['default', '<rootDir>/src/test/dialect-reporter.js'],
  maxWorkers: 2,
});
