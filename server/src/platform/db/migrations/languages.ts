import { DataTypes, type Migration } from '../migration.js';

/**
 * 0250–0259: the site in Simplified Chinese and English (issue 34). An administrator's chosen
 * language follows them to any browser; null means "the browser's".
 */
export const languageMigrations: Migration[] = [
  {
    name: '0250-add-administrators-language',
    up: ({ qi }) =>
      qi.addColumn('administrators', 'language', {
        type: DataTypes.STRING(16),
        allowNull: true,
      }),
    down: ({ qi }) => qi.removeColumn('administrators', 'language'),
  },
];
