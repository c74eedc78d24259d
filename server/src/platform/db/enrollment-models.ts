import type {
  InferAttributes,
  InferCreationAttributes,
  Model,
  ModelStatic,
  Sequelize,
} from 'sequelize';
import type { EnrollmentChangeState } from '@svc/shared';
import { defineTable, str, time, uuidKey } from './attributes.js';

export interface TerminalSpaceRow extends Model<
  InferAttributes<TerminalSpaceRow>,
  InferCreationAttributes<TerminalSpaceRow>
> {
  terminalId: string;
  spaceId: string;
  createdAt: Date;
}

export interface EnrollmentChangeRow extends Model<
  InferAttributes<EnrollmentChangeRow>,
  InferCreationAttributes<EnrollmentChangeRow>
> {
  id: string;
  organizationId: string;
  personId: string;
  terminalId: string;
  ip: string | null;
  state: EnrollmentChangeState;
  oldName: string;
  newName: string;
  oldPhotoSha256: string | null;
  newPhotoSha256: string;
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
}

export interface EnrollmentModels {
  TerminalSpace: ModelStatic<TerminalSpaceRow>;
  EnrollmentChange: ModelStatic<EnrollmentChangeRow>;
}

/** Models of the enrollment-trust tables (migrations 0070–0076); see defineModels for the rules. */
export function defineEnrollmentModels(sequelize: Sequelize): EnrollmentModels {
  const TerminalSpace = defineTable<TerminalSpaceRow>(sequelize, 'terminal_spaces', {
    terminalId: { ...str(64), primaryKey: true },
    spaceId: { ...str(36), primaryKey: true },
    createdAt: time(),
  });
  const EnrollmentChange = defineTable<EnrollmentChangeRow>(sequelize, 'enrollment_changes', {
    id: uuidKey(),
    organizationId: str(36),
    personId: str(36),
    terminalId: str(64),
    ip: str(64, true),
    state: str(16),
    oldName: str(128),
    newName: str(128),
    oldPhotoSha256: str(64, true),
    newPhotoSha256: str(64),
    createdAt: time(),
    decidedAt: time(true),
    decidedBy: str(64, true),
  });
  return { TerminalSpace, EnrollmentChange };
}
