import {
  DataTypes,
  type Attributes,
  type Model,
  type ModelAttributes,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** Attribute shorthands shared by every model definition (they mirror the migrations). */
export const time = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
export const str = (n: number, allowNull = false) => ({ type: DataTypes.STRING(n), allowNull });
export const int = (allowNull = false) => ({ type: DataTypes.INTEGER, allowNull });
export const bool = () => ({ type: DataTypes.BOOLEAN, allowNull: false });
/** The schema belongs to the migrations: models never add timestamps or rename tables. */
export const modelOptions = {
  underscored: true,
  timestamps: false,
  freezeTableName: true,
} as const;
/** A 36-character id (a UUID) as the primary key. */
export const uuidKey = () => ({ ...str(36), primaryKey: true });
/** A database-numbered primary key. */
export const autoKey = () => ({ type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true });
/** `createdAt` and `updatedAt`, both required. */
export const stamps = () => ({ createdAt: time(), updatedAt: time() });

/** A model of the migrated table `table`, with `modelOptions`. */
export function defineTable<M extends Model>(
  sequelize: Sequelize,
  table: string,
  attributes: ModelAttributes<M, Attributes<M>>,
): ModelStatic<M> {
  return sequelize.define<M>(table, attributes, modelOptions);
}
