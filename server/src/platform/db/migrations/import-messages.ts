import type { Migration } from '../migration.js';

/**
 * 0280–0289: an import's refused rows carry their reasons by code and values (issue 34), which
 * made `import_jobs.errors` outgrow MySQL's TEXT (64 KB) at about 600 refused rows of 1,000:
 * the progress write failed there and the import never finished. MEDIUMTEXT holds 16 MB. SQLite's
 * TEXT has no such limit, so nothing changes there.
 */
export const importMessageMigrations: Migration[] = [
  {
    name: '0280-import-jobs-errors-mediumtext',
    up: async ({ qi, dialect }) => {
      if (dialect !== 'mysql') return;
      await qi.sequelize.query('ALTER TABLE import_jobs MODIFY errors MEDIUMTEXT NOT NULL');
    },
    down: async ({ qi, dialect }) => {
      if (dialect !== 'mysql') return;
      await qi.sequelize.query('ALTER TABLE import_jobs MODIFY errors TEXT NOT NULL');
    },
  },
  {
    // What became of an import's ZIP of photos (issue 30): rows saved without their photo,
    // entries not read, photos that matched no row. JSON; null for an import without a ZIP.
    name: '0281-import-jobs-photos',
    up: async ({ qi, dialect }) => {
      const type = dialect === 'mysql' ? 'MEDIUMTEXT' : 'TEXT';
      await qi.sequelize.query(`ALTER TABLE import_jobs ADD COLUMN photos ${type} NULL`);
    },
    down: async ({ qi }) => {
      await qi.sequelize.query('ALTER TABLE import_jobs DROP COLUMN photos');
    },
  },
];
