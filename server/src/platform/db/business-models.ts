import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { bool, defineTable, int, stamps, str, time, uuidKey } from './attributes.js';

export interface SpaceRow extends Model<
  InferAttributes<SpaceRow>,
  InferCreationAttributes<SpaceRow>
> {
  id: string;
  organizationId: string;
  parentId: string | null;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface PersonRow extends Model<
  InferAttributes<PersonRow>,
  InferCreationAttributes<PersonRow>
> {
  id: string;
  organizationId: string;
  name: string;
  nameKey: string;
  idNumber: string;
  phone: string | null;
  notes: string | null;
  validFrom: Date | null;
  validUntil: Date | null;
  enabled: boolean;
  photoSha256: string | null;
  version: CreationOptional<number>;
  createdAt: Date;
  updatedAt: Date;
}

export interface PersonSpaceRow extends Model<
  InferAttributes<PersonSpaceRow>,
  InferCreationAttributes<PersonSpaceRow>
> {
  personId: string;
  spaceId: string;
  /** A copy of the person's name_key, for a space's people in name order (one index). */
  nameKey: string;
}

export interface FileRow extends Model<InferAttributes<FileRow>, InferCreationAttributes<FileRow>> {
  sha256: string;
  mediaType: string;
  bytes: number;
  width: number | null;
  height: number | null;
  createdAt: Date;
}

export interface DeviceRow extends Model<
  InferAttributes<DeviceRow>,
  InferCreationAttributes<DeviceRow>
> {
  id: string;
  organizationId: string;
  sn: string;
  name: string;
  model: string;
  spaceId: string | null;
  baseUrl: string;
  enabled: boolean;
  capacity: number | null;
  maxPhotoBytes: number | null;
  maxPhotoPixels: number | null;
  minPhotoSide: CreationOptional<number | null>;
  photoBaseline420: CreationOptional<boolean>;
  /** Smallest face height (px) the device enrolls; null: FACE_MIN_PX. */
  minFacePx: CreationOptional<number | null>;
  keyHash: string;
  keyRotatedAt: Date;
  lastHeartbeatAt: Date | null;
  /** First refused heartbeat (wrong key) since the last accepted one; null while accepted. */
  keyRefusedAt: CreationOptional<Date | null>;
  /** The device's clock minus our receive time (devices/clock.ts); null before a measure. */
  clockDriftMs: CreationOptional<number | null>;
  clockCheckedAt: CreationOptional<Date | null>;
  clockSource: CreationOptional<'heartbeat' | 'event' | null>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ImportJobRow extends Model<
  InferAttributes<ImportJobRow>,
  InferCreationAttributes<ImportJobRow>
> {
  id: string;
  organizationId: string;
  createdBy: string | null;
  state: 'running' | 'succeeded' | 'failed';
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: string;
  /** JSON of an ImportPhotosReport (migration 0281); null without a ZIP. */
  photos: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export type SyncState = 'pending' | 'running' | 'succeeded' | 'failed';

export interface SyncTaskRow extends Model<
  InferAttributes<SyncTaskRow>,
  InferCreationAttributes<SyncTaskRow>
> {
  id: string;
  organizationId: string;
  personId: string;
  deviceId: string;
  action: 'put' | 'delete';
  lane: 'priority' | 'bulk';
  state: SyncState;
  personVersion: number;
  photoSha256: string | null;
  attempts: number;
  nextAttemptAt: Date;
  resultVersion: number | null;
  resultPhotoSha256: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** The failure's values as JSON (`detail` names its sentence; migration 0290). */
  errorParams: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface RecognitionEventRow extends Model<
  InferAttributes<RecognitionEventRow>,
  InferCreationAttributes<RecognitionEventRow>
> {
  id: string;
  eventId: string;
  organizationId: string;
  deviceId: string | null;
  deviceSn: string;
  deviceName: string;
  personId: string | null;
  personName: string | null;
  spaceId: string | null;
  spaceName: string | null;
  score: number;
  /** The device's time, or our receive time when the device's was out of tolerance. */
  time: Date;
  receivedAt: Date;
  /** What the device said when `time` is not its time (out of tolerance); else null. */
  reportedTime: Date | null;
  snapshotSha256: string | null;
  deliveryState: 'pending' | 'delivered' | 'expired' | 'none';
  deliveryAttempts: number;
  nextDeliveryAt: Date | null;
  deliveredAt: Date | null;
  deliveryError: string | null;
}

export interface BusinessModels {
  Space: ModelStatic<SpaceRow>;
  Person: ModelStatic<PersonRow>;
  PersonSpace: ModelStatic<PersonSpaceRow>;
  File: ModelStatic<FileRow>;
  Device: ModelStatic<DeviceRow>;
  ImportJob: ModelStatic<ImportJobRow>;
  SyncTask: ModelStatic<SyncTaskRow>;
  RecognitionEvent: ModelStatic<RecognitionEventRow>;
}

/** Models of the business tables (migrations 0015–0025); see defineModels for the rules. */
export function defineBusinessModels(sequelize: Sequelize): BusinessModels {
  const Space = defineTable<SpaceRow>(sequelize, 'spaces', {
    id: uuidKey(),
    organizationId: str(36),
    parentId: str(36, true),
    name: str(128),
    ...stamps(),
  });
  const Person = defineTable<PersonRow>(sequelize, 'people', {
    id: uuidKey(),
    organizationId: str(36),
    name: str(128),
    nameKey: str(128),
    idNumber: str(64),
    phone: str(32, true),
    notes: str(1024, true),
    validFrom: time(true),
    validUntil: time(true),
    enabled: bool(),
    photoSha256: str(64, true),
    version: { ...int(), defaultValue: 1 },
    ...stamps(),
  });
  const PersonSpace = defineTable<PersonSpaceRow>(sequelize, 'person_spaces', {
    personId: { ...str(36), primaryKey: true },
    spaceId: { ...str(36), primaryKey: true },
    nameKey: str(128),
  });
  const File = defineTable<FileRow>(sequelize, 'files', {
    sha256: { ...str(64), primaryKey: true },
    mediaType: str(32),
    bytes: int(),
    width: int(true),
    height: int(true),
    createdAt: time(),
  });
  const Device = defineTable<DeviceRow>(sequelize, 'devices', {
    id: uuidKey(),
    organizationId: str(36),
    sn: str(64),
    name: str(128),
    model: str(64),
    spaceId: str(36, true),
    baseUrl: str(512),
    enabled: bool(),
    capacity: int(true),
    maxPhotoBytes: int(true),
    maxPhotoPixels: int(true),
    minPhotoSide: int(true),
    photoBaseline420: { ...bool(), field: 'photo_baseline_420', defaultValue: false },
    minFacePx: int(true),
    keyHash: str(64),
    keyRotatedAt: time(),
    lastHeartbeatAt: time(true),
    keyRefusedAt: time(true),
    clockDriftMs: { type: DataTypes.DOUBLE, allowNull: true },
    clockCheckedAt: time(true),
    clockSource: str(16, true),
    ...stamps(),
  });
  const ImportJob = defineTable<ImportJobRow>(sequelize, 'import_jobs', {
    id: uuidKey(),
    organizationId: str(36),
    createdBy: str(36, true),
    state: { type: DataTypes.STRING(16), allowNull: false },
    total: int(),
    processed: int(),
    succeeded: int(),
    failed: int(),
    // MEDIUMTEXT on MySQL (migration 0280): a thousand refused rows with their reasons.
    errors: { type: DataTypes.TEXT('medium'), allowNull: false },
    photos: { type: DataTypes.TEXT('medium'), allowNull: true },
    createdAt: time(),
    finishedAt: time(true),
  });
  const SyncTask = defineTable<SyncTaskRow>(sequelize, 'sync_tasks', {
    id: uuidKey(),
    organizationId: str(36),
    personId: str(36),
    deviceId: str(36),
    action: str(8),
    lane: str(8),
    state: str(16),
    personVersion: int(),
    photoSha256: str(64, true),
    attempts: int(),
    nextAttemptAt: time(),
    resultVersion: int(true),
    resultPhotoSha256: str(64, true),
    errorCode: str(32, true),
    errorMessage: str(512, true),
    errorParams: { type: DataTypes.TEXT, allowNull: true },
    ...stamps(),
    finishedAt: time(true),
  });
  const RecognitionEvent = defineTable<RecognitionEventRow>(sequelize, 'recognition_events', {
    id: uuidKey(),
    eventId: str(64),
    organizationId: str(36),
    deviceId: str(36, true),
    deviceSn: str(64),
    deviceName: str(128),
    personId: str(36, true),
    personName: str(128, true),
    spaceId: str(36, true),
    spaceName: str(128, true),
    score: { type: DataTypes.DOUBLE, allowNull: false },
    time: time(),
    receivedAt: time(),
    reportedTime: time(true),
    snapshotSha256: str(64, true),
    deliveryState: str(16),
    deliveryAttempts: int(),
    nextDeliveryAt: time(true),
    deliveredAt: time(true),
    deliveryError: str(512, true),
  });
  return { Space, Person, PersonSpace, File, Device, ImportJob, SyncTask, RecognitionEvent };
}
