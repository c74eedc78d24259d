import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { autoKey, defineTable, str, time } from './attributes.js';

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
  const AdministratorTotp = defineTable<AdministratorTotpRow>(sequelize, 'administrator_totp', {
    administratorId: { ...str(36), primaryKey: true },
    secretSealed: str(255),
    enabledAt: time(true),
    lastStep: { type: DataTypes.BIGINT, allowNull: true },
    createdAt: time(),
  });
  const RecoveryCode = defineTable<RecoveryCodeRow>(sequelize, 'administrator_recovery_codes', {
    id: autoKey(),
    administratorId: str(36),
    codeHash: str(64),
    usedAt: time(true),
    createdAt: time(),
  });
  return { AdministratorTotp, RecoveryCode };
}
