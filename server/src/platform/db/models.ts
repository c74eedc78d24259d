import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { autoKey, defineTable, stamps, str, time, uuidKey } from './attributes.js';
import type { AdminRole } from '@svc/shared';
import { defineBusinessModels, type BusinessModels } from './business-models.js';
import { defineEnrollmentModels, type EnrollmentModels } from './enrollment-models.js';
import { defineAccountModels, type AccountModels } from './account-models.js';

export interface OrganizationRow extends Model<
  InferAttributes<OrganizationRow>,
  InferCreationAttributes<OrganizationRow>
> {
  id: string;
  name: string;
  /** Days its recognition events are kept; null: the default applies. */
  eventRetentionDays: CreationOptional<number | null>;
  createdAt: Date;
  updatedAt: Date;
}

export interface AdministratorRow extends Model<
  InferAttributes<AdministratorRow>,
  InferCreationAttributes<AdministratorRow>
> {
  id: string;
  organizationId: string;
  username: string;
  displayName: string;
  role: AdminRole;
  passwordHash: string;
  mustChangePassword: boolean;
  disabled: boolean;
  passwordChangedAt: Date | null;
  lastLoginAt: Date | null;
  /** The site's language the administrator chose; null: the browser's. */
  language: CreationOptional<string | null>;
  createdAt: Date;
  updatedAt: Date;
}

export interface SessionRow extends Model<
  InferAttributes<SessionRow>,
  InferCreationAttributes<SessionRow>
> {
  id: string;
  administratorId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  /** A superadmin's working organization (null: all); see http/scope.ts. */
  organizationId: CreationOptional<string | null>;
}

export interface RuntimeSettingRow extends Model<
  InferAttributes<RuntimeSettingRow>,
  InferCreationAttributes<RuntimeSettingRow>
> {
  key: string;
  value: string;
  updatedAt: Date;
}

export interface AuditRow extends Model<
  InferAttributes<AuditRow>,
  InferCreationAttributes<AuditRow>
> {
  id: CreationOptional<string>;
  at: Date;
  organizationId: string | null;
  actorId: string | null;
  actorName: string | null;
  action: string;
  outcome: string;
  targetType: string | null;
  targetId: string | null;
  ip: string | null;
  summary: string;
  /** The summary as JSON `{code, params}` (migration 0270); null on rows written before. */
  summaryMessage: CreationOptional<string | null>;
}

export interface LoginFailureRow extends Model<
  InferAttributes<LoginFailureRow>,
  InferCreationAttributes<LoginFailureRow>
> {
  id: CreationOptional<string>;
  scope: 'user' | 'ip' | 'device';
  key: string;
  username: CreationOptional<string | null>;
  at: Date;
}

export interface DiscoveredNodeRow extends Model<
  InferAttributes<DiscoveredNodeRow>,
  InferCreationAttributes<DiscoveredNodeRow>
> {
  id: string;
  kind: 'enrollment' | 'display';
  name: string;
  model: string;
  version: string;
  address: string;
  port: number;
  central: string;
  lastSeen: Date;
  lastCheckin: CreationOptional<Date | null>;
  tokenHash: CreationOptional<string | null>;
  tokenIssuedAt: CreationOptional<Date | null>;
  organizationId: CreationOptional<string | null>;
  /** The address the current token was pushed to: the only one it works from. */
  tokenAddress: CreationOptional<string | null>;
  conflictAddress: CreationOptional<string | null>;
  conflictPort: CreationOptional<number | null>;
  conflictFirstHeard: CreationOptional<Date | null>;
  conflictLastHeard: CreationOptional<Date | null>;
  createdAt: Date;
}

export interface Models extends BusinessModels, EnrollmentModels, AccountModels {
  Organization: ModelStatic<OrganizationRow>;
  Administrator: ModelStatic<AdministratorRow>;
  Session: ModelStatic<SessionRow>;
  RuntimeSetting: ModelStatic<RuntimeSettingRow>;
  Audit: ModelStatic<AuditRow>;
  LoginFailure: ModelStatic<LoginFailureRow>;
  DiscoveredNode: ModelStatic<DiscoveredNodeRow>;
}

/**
 * Models mirror the migrated tables (the migrations own the schema; models never sync).
 * `define` instead of classes keeps every Sequelize instance's models separate, so the
 * SQLite and MySQL halves of a test can live in one process.
 */
export function defineModels(sequelize: Sequelize): Models {
  const Organization = defineTable<OrganizationRow>(sequelize, 'organizations', {
    id: uuidKey(),
    name: str(128),
    eventRetentionDays: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
    ...stamps(),
  });
  const Administrator = defineTable<AdministratorRow>(sequelize, 'administrators', {
    id: uuidKey(),
    organizationId: str(36),
    username: str(64),
    displayName: str(128),
    role: { type: DataTypes.STRING(16), allowNull: false },
    passwordHash: str(255),
    mustChangePassword: { type: DataTypes.BOOLEAN, allowNull: false },
    disabled: { type: DataTypes.BOOLEAN, allowNull: false },
    passwordChangedAt: time(true),
    lastLoginAt: time(true),
    language: { type: DataTypes.STRING(16), allowNull: true, defaultValue: null },
    ...stamps(),
  });
  const Session = defineTable<SessionRow>(sequelize, 'sessions', {
    id: { ...str(64), primaryKey: true },
    administratorId: str(36),
    createdAt: time(),
    lastSeenAt: time(),
    expiresAt: time(),
    ip: str(64, true),
    userAgent: str(255, true),
    organizationId: str(36, true),
  });
  const RuntimeSetting = defineTable<RuntimeSettingRow>(sequelize, 'runtime_settings', {
    key: { ...str(64), primaryKey: true },
    value: { type: DataTypes.TEXT, allowNull: false },
    updatedAt: time(),
  });
  const Audit = defineTable<AuditRow>(sequelize, 'audit_log', {
    id: autoKey(),
    at: time(),
    organizationId: str(36, true),
    actorId: str(36, true),
    actorName: str(64, true),
    action: str(64),
    outcome: str(16),
    targetType: str(32, true),
    targetId: str(64, true),
    ip: str(64, true),
    summary: str(1024),
    summaryMessage: { type: DataTypes.TEXT, allowNull: true },
  });
  const LoginFailure = defineTable<LoginFailureRow>(sequelize, 'login_failures', {
    id: autoKey(),
    scope: { type: DataTypes.STRING(8), allowNull: false },
    key: str(128),
    username: str(64, true),
    at: time(),
  });
  const DiscoveredNode = defineTable<DiscoveredNodeRow>(sequelize, 'discovered_nodes', {
    id: { ...str(64), primaryKey: true },
    kind: { type: DataTypes.STRING(16), allowNull: false },
    name: str(64),
    model: str(64),
    version: str(64),
    address: str(64),
    port: { type: DataTypes.INTEGER, allowNull: false },
    central: str(2048),
    lastSeen: time(),
    lastCheckin: time(true),
    tokenHash: str(64, true),
    tokenIssuedAt: time(true),
    organizationId: str(36, true),
    tokenAddress: str(64, true),
    conflictAddress: str(64, true),
    conflictPort: { type: DataTypes.INTEGER, allowNull: true },
    conflictFirstHeard: time(true),
    conflictLastHeard: time(true),
    createdAt: time(),
  });
  return {
    Organization,
    Administrator,
    Session,
    RuntimeSetting,
    Audit,
    LoginFailure,
    DiscoveredNode,
    ...defineBusinessModels(sequelize),
    ...defineEnrollmentModels(sequelize),
    ...defineAccountModels(sequelize),
  };
}
