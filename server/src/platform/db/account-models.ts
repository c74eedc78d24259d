import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { modelOptions, str, time } from './attributes.js';

export interface AdministratorTotpRow extends Model<
  InferAttributes<AdministratorTotpRow>,
  InferCreationAttributes<AdministratorTotpRow>
> {
  administratorId: string;
  secretSealed: string;
  /** Null while the enrolment waits for its first code. */
  enabledAt: Date | null;
  /** The newest TOTP time step accepted (as a string: BIGINT). */
  lastStep: string | number | null;
  createdAt: Date;
}

export interface RecoveryCodeRow extends Model<
  InferAttributes<RecoveryCodeRow>,
  InferCreationAttributes<RecoveryCodeRow>
> {
  id: CreationOptional<number>;
  administratorId: string;
  codeHash: string;
  usedAt: Date | null;
  createdAt: Date;
}

export interface AccountModels {
  AdministratorTotp: ModelStatic<AdministratorTotpRow>;
  RecoveryCode: ModelStatic<RecoveryCodeRow>;
}

/** Models of the two-factor tables (migrations 0191–0192); see defineModels for the rules. */
export function defineAccountModels(sequelize: Sequelize): AccountModels {
  const AdministratorTotp = sequelize.define<AdministratorTotpRow>(
    'administrator_totp',
    {
      administratorId: { ...str(36), primaryKey: true },
      secretSealed: str(255),
      enabledAt: time(true),
      lastStep: { type: DataTypes.BIGINT, allowNull: true },
      createdAt: time(),
    },
    modelOptions,
  );
  const RecoveryCode = sequelize.define<RecoveryCodeRow>(
    'administrator_recovery_codes',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      administratorId: str(36),
      codeHash: str(64),
      usedAt: time(true),
      createdAt: time(),
    },
    modelOptions,
  );
  return { AdministratorTotp, RecoveryCode };
}
