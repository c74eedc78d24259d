import { DataTypes, addIndex, type Migration } from '../migration.js';

/**
 * 0037–0039: a space's people in name order straight from one index (issue 4's benchmark: a
 * page of a space of thousands took seconds when the name index of all people was walked and
 * filtered by membership). The person's `name_key` is copied into each access row; the people
 * service keeps the copies equal to `people.name_key` in the same transaction.
 */
export const peopleSearchMigrations: Migration[] = [
  {
    name: '0037-person-spaces-name-key',
    // Same type and (table default) collation as people.name_key, so both orders agree.
    up: ({ qi }) =>
      qi.addColumn('person_spaces', 'name_key', {
        type: DataTypes.STRING(128),
        allowNull: false,
        defaultValue: '',
      }),
    // Native DROP COLUMN: Sequelize's SQLite removeColumn rebuilds the table without its indexes.
    down: ({ qi }) =>
      qi.sequelize.query('ALTER TABLE person_spaces DROP COLUMN name_key').then(() => undefined),
  },
  {
    name: '0038-person-spaces-name-key-backfill',
    // Data only: rows written before 0037 get their person's key.
    up: ({ qi }) =>
      qi.sequelize
        .query(
          'UPDATE person_spaces SET name_key = ' +
            '(SELECT p.name_key FROM people p WHERE p.id = person_spaces.person_id)',
        )
        .then(() => undefined),
    down: () => Promise.resolve(),
  },
  {
    name: '0039-index-person-spaces-space-name',
    ...addIndex('person_spaces', 'person_spaces_space_name', ['space_id', 'name_key', 'person_id']),
  },
];
