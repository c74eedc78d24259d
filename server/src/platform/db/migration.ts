import { DataTypes, type QueryInterface, type ModelAttributes } from 'sequelize';

export interface MigrationContext {
  qi: QueryInterface;
  dialect: 'sqlite' | 'mysql';
}

/** One DDL change. Migrations are append-only: a released one is never edited. */
export interface Migration {
  name: string;
  up(ctx: MigrationContext): Promise<void>;
  down(ctx: MigrationContext): Promise<void>;
}

export const col = {
  uuidPk: () => ({ type: DataTypes.STRING(36), primaryKey: true, allowNull: false }),
  autoPk: () => ({
    type: DataTypes.BIGINT,
    primaryKey: true,
    autoIncrement: true,
    allowNull: false,
  }),
  time: (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull }),
  ref: (table: string, onDelete: 'CASCADE' | 'RESTRICT' | 'SET NULL', allowNull = false) => ({
    type: DataTypes.STRING(36),
    allowNull,
    references: { model: table, key: 'id' },
    onDelete,
    onUpdate: 'CASCADE',
  }),
};

/** createTable with the options every table shares (utf8mb4 on MySQL). */
export function createTable(name: string, attributes: ModelAttributes): Migration['up'] {
  return ({ qi }) =>
    qi.createTable(name, attributes, { charset: 'utf8mb4', collate: 'utf8mb4_unicode_ci' });
}

export function dropTable(name: string): Migration['down'] {
  return ({ qi }) => qi.dropTable(name);
}

/**
 * A new table: created on the way up (createTable), dropped on the way down. Its columns may
 * depend on the dialect.
 */
export function newTable(name: string, attributes: ModelAttributes): Pick<Migration, 'up' | 'down'>;
export function newTable(
  name: string,
  attributes: (ctx: MigrationContext) => ModelAttributes,
): Pick<Migration, 'up' | 'down'>;
export function newTable(
  name: string,
  attributes: ModelAttributes | ((ctx: MigrationContext) => ModelAttributes),
): Pick<Migration, 'up' | 'down'> {
  const columns = (ctx: MigrationContext) =>
    typeof attributes === 'function' ? attributes(ctx) : attributes;
  return { up: (ctx) => createTable(name, columns(ctx))(ctx), down: dropTable(name) };
}

export function addIndex(
  table: string,
  name: string,
  fields: string[],
  unique = false,
): Pick<Migration, 'up' | 'down'> {
  return {
    up: ({ qi }) => qi.addIndex(table, fields, { name, unique }),
    down: ({ qi }) => qi.removeIndex(table, name),
  };
}

/**
 * An index whose first column carries a foreign key. MySQL lets the constraint adopt it and
 * then refuses to drop it, so on the way down a plain index on that column takes over first.
 */
export function addIndexOverForeignKey(
  table: string,
  name: string,
  fields: string[],
  unique = false,
): Pick<Migration, 'up' | 'down'> {
  const standIn = `${name}_fk`;
  return {
    async up({ qi, dialect }) {
      await qi.addIndex(table, fields, { name, unique });
      if (dialect === 'mysql') await qi.removeIndex(table, standIn).catch(() => undefined);
    },
    async down({ qi, dialect }) {
      if (dialect === 'mysql') await qi.addIndex(table, [fields[0]!], { name: standIn });
      await qi.removeIndex(table, name);
    },
  };
}

/**
 * An index on a foreign-key column. MySQL creates one with the constraint (and then refuses to
 * drop ours, which it would adopt); SQLite does not, so only SQLite gets it.
 */
export function addForeignKeyIndex(
  table: string,
  name: string,
  field: string,
): Pick<Migration, 'up' | 'down'> {
  const index = addIndex(table, name, [field]);
  return {
    up: (ctx) => (ctx.dialect === 'sqlite' ? index.up(ctx) : Promise.resolve()),
    down: (ctx) => (ctx.dialect === 'sqlite' ? index.down(ctx) : Promise.resolve()),
  };
}

export { DataTypes };
