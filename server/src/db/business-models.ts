import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

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
  keyHash: string;
  keyRotatedAt: Date;
  lastHeartbeatAt: Date | null;
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
  createdAt: Date;
  finishedAt: Date | null;
}

export interface BusinessModels {
  Space: ModelStatic<SpaceRow>;
  Person: ModelStatic<PersonRow>;
  PersonSpace: ModelStatic<PersonSpaceRow>;
  File: ModelStatic<FileRow>;
  Device: ModelStatic<DeviceRow>;
  ImportJob: ModelStatic<ImportJobRow>;
}

const time = (allowNull = false) => ({ type: DataTypes.DATE(3), allowNull });
const str = (n: number, allowNull = false) => ({ type: DataTypes.STRING(n), allowNull });
const int = (allowNull = false) => ({ type: DataTypes.INTEGER, allowNull });
const bool = () => ({ type: DataTypes.BOOLEAN, allowNull: false });

/** Models of the business tables (migrations 0015–0025); see defineModels for the rules. */
export function defineBusinessModels(sequelize: Sequelize): BusinessModels {
  const opts = { underscored: true, timestamps: false, freezeTableName: true } as const;
  const Space = sequelize.define<SpaceRow>(
    'spaces',
    {
      id: { ...str(36), primaryKey: true },
      organizationId: str(36),
      parentId: str(36, true),
      name: str(128),
      createdAt: time(),
      updatedAt: time(),
    },
    opts,
  );
  const Person = sequelize.define<PersonRow>(
    'people',
    {
      id: { ...str(36), primaryKey: true },
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
      createdAt: time(),
      updatedAt: time(),
    },
    opts,
  );
  const PersonSpace = sequelize.define<PersonSpaceRow>(
    'person_spaces',
    { personId: { ...str(36), primaryKey: true }, spaceId: { ...str(36), primaryKey: true } },
    opts,
  );
  const File = sequelize.define<FileRow>(
    'files',
    {
      sha256: { ...str(64), primaryKey: true },
      mediaType: str(32),
      bytes: int(),
      width: int(true),
      height: int(true),
      createdAt: time(),
    },
    opts,
  );
  const Device = sequelize.define<DeviceRow>(
    'devices',
    {
      id: { ...str(36), primaryKey: true },
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
      keyHash: str(64),
      keyRotatedAt: time(),
      lastHeartbeatAt: time(true),
      createdAt: time(),
      updatedAt: time(),
    },
    opts,
  );
  const ImportJob = sequelize.define<ImportJobRow>(
    'import_jobs',
    {
      id: { ...str(36), primaryKey: true },
      organizationId: str(36),
      createdBy: str(36, true),
      state: { type: DataTypes.STRING(16), allowNull: false },
      total: int(),
      processed: int(),
      succeeded: int(),
      failed: int(),
      errors: { type: DataTypes.TEXT, allowNull: false },
      createdAt: time(),
      finishedAt: time(true),
    },
    opts,
  );
  return { Space, Person, PersonSpace, File, Device, ImportJob };
}
