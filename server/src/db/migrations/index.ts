import {
  DataTypes,
  addForeignKeyIndex,
  addIndex,
  col,
  createTable,
  dropTable,
  type Migration,
} from '../migration.js';

/**
 * The schema's whole history, in order, one DDL change each. Later features append their
 * own migrations here; released entries are never edited or reordered.
 */
export const migrations: Migration[] = [
  {
    name: '0001-create-organizations',
    up: createTable('organizations', {
      id: col.uuidPk(),
      name: { type: DataTypes.STRING(128), allowNull: false },
      created_at: col.time(),
      updated_at: col.time(),
    }),
    down: dropTable('organizations'),
  },
  {
    name: '0002-create-administrators',
    up: createTable('administrators', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      username: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      display_name: { type: DataTypes.STRING(128), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      password_hash: { type: DataTypes.STRING(255), allowNull: false },
      must_change_password: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      password_changed_at: col.time(true),
      last_login_at: col.time(true),
      created_at: col.time(),
      updated_at: col.time(),
    }),
    down: dropTable('administrators'),
  },
  {
    name: '0003-create-sessions',
    up: createTable('sessions', {
      // SHA-256 of the cookie value: a stolen table row cannot be replayed as a cookie.
      id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      administrator_id: col.ref('administrators', 'CASCADE'),
      created_at: col.time(),
      last_seen_at: col.time(),
      expires_at: col.time(),
      ip: { type: DataTypes.STRING(64), allowNull: true },
      user_agent: { type: DataTypes.STRING(255), allowNull: true },
    }),
    down: dropTable('sessions'),
  },
  {
    name: '0004-create-runtime-settings',
    up: createTable('runtime_settings', {
      key: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      value: { type: DataTypes.TEXT, allowNull: false },
      updated_at: col.time(),
    }),
    down: dropTable('runtime_settings'),
  },
  {
    name: '0005-create-audit-log',
    up: createTable('audit_log', {
      id: col.autoPk(),
      at: col.time(),
      organization_id: { type: DataTypes.STRING(36), allowNull: true },
      actor_id: { type: DataTypes.STRING(36), allowNull: true },
      actor_name: { type: DataTypes.STRING(64), allowNull: true },
      action: { type: DataTypes.STRING(64), allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      target_type: { type: DataTypes.STRING(32), allowNull: true },
      target_id: { type: DataTypes.STRING(64), allowNull: true },
      ip: { type: DataTypes.STRING(64), allowNull: true },
      summary: { type: DataTypes.STRING(1024), allowNull: false, defaultValue: '' },
    }),
    down: dropTable('audit_log'),
  },
  {
    name: '0006-create-login-failures',
    up: createTable('login_failures', {
      id: col.autoPk(),
      scope: { type: DataTypes.STRING(8), allowNull: false },
      key: { type: DataTypes.STRING(128), allowNull: false },
      at: col.time(),
    }),
    down: dropTable('login_failures'),
  },
  {
    name: '0007-index-sessions-administrator',
    ...addForeignKeyIndex('sessions', 'sessions_administrator_id', 'administrator_id'),
  },
  {
    name: '0008-index-audit-log-time',
    ...addIndex('audit_log', 'audit_log_org_at', ['organization_id', 'at']),
  },
  {
    name: '0009-index-login-failures-key-time',
    ...addIndex('login_failures', 'login_failures_scope_key_at', ['scope', 'key', 'at']),
  },
  {
    name: '0010-index-administrators-organization',
    ...addForeignKeyIndex('administrators', 'administrators_organization_id', 'organization_id'),
  },
  {
    name: '0011-create-discovered-nodes',
    up: createTable('discovered_nodes', {
      id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      model: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      version: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      address: { type: DataTypes.STRING(64), allowNull: false },
      port: { type: DataTypes.INTEGER, allowNull: false },
      central: { type: DataTypes.STRING(2048), allowNull: false, defaultValue: '' },
      last_seen: col.time(),
      last_checkin: col.time(true),
      // SHA-256 of the terminal's current token; a new push replaces (revokes) the old one.
      token_hash: { type: DataTypes.STRING(64), allowNull: true },
      token_issued_at: col.time(true),
      created_at: col.time(),
    }),
    down: dropTable('discovered_nodes'),
  },
  {
    name: '0012-index-discovered-nodes-last-seen',
    ...addIndex('discovered_nodes', 'discovered_nodes_last_seen', ['last_seen']),
  },
  {
    name: '0013-index-discovered-nodes-token',
    ...addIndex('discovered_nodes', 'discovered_nodes_token_hash', ['token_hash'], true),
  },
];
