import { DataTypes } from 'sequelize';

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
